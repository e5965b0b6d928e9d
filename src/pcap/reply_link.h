// Internal: a direction's waits for the peer's reply linked to the other direction's stalls
// (issue 37: "request/response: a direction that waits on its peer's stall says which stall, in
// both directions' reports").
//
// In a request/response exchange one direction's wait for the peer's data (peer_reply,
// core/limit_cause.h) may be the other direction's stall: a request written in two pieces whose
// second piece Nagle holds until the first is ACKed (RFC 896), and the responder holds that ACK
// for its delayed-ACK timer (RFC 1122 4.2.3.2) since half a request needs no answer: the
// requester's direction stalls on the delayed ACK, and the responder's waits for the whole
// request just as long. Pipelining does not remove that wait; the stall's fix does.
//
// Each HalfFlow passes its committed time accounts (every span of its accounts, in time order)
// through a RunRecorder, which merges adjacent spans of one class into runs: a wait (peer_reply),
// a stall (delayed_ack, loss, receiver_window, or the flight's prompt waits for ACKs, a stall
// only where the report finds the flight held by the sender's buffer or the receiver's window),
// or neither. The flight's waits less than a stall threshold apart are one run, with the time
// they took in it (`busy`): a wait's overlap with it counts in that proportion. A connection's ReplyLink
// matches each direction's waits against the other's stalls as runs finish: a wait is linked to
// a cause of the peer's stalls when its overlap with them sums to at least the stall threshold (a
// stall is a wait past it: a shorter overlap, a wait that touches a stall's edge, is no stall's).
// Runs are kept only until the other direction's accounts have passed their end (no later run of
// it can overlap them), at most kMaxKept a side (the oldest half are then settled as they are: a
// later run overlapping them goes unmatched): O(1) amortised per run, nothing per packet beyond a
// comparison, and the figures are settled per connection when its report is made.
#pragma once

#include <array>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap::detail {

// A run's class: a LimitCause's value, kFlightRun for the flight's prompt waits (HalfFlow's
// kFlight), kOtherRun for what is neither a wait nor a stall.
inline constexpr std::uint8_t kFlightRun = core::kLimitCauseCount;
inline constexpr std::uint8_t kOtherRun = core::kLimitCauseCount + 1;
inline constexpr std::size_t kRunClasses = core::kLimitCauseCount + 2;

struct Run {
  std::int64_t start = 0, end = 0;
  std::int64_t busy = 0;  // the time of its class within [start, end): all of it but for a flight's
  std::uint8_t cls = kOtherRun;
};

class RunRecorder {
 public:
  // Flight waits closer than `gap_ns` (the stall threshold) are one run.
  explicit RunRecorder(std::int64_t gap_ns = 0) : gap_ns_(gap_ns) {}

  // One committed span of the accounts (cause: a LimitCause's value or kFlightRun). Called for
  // every span: a table look-up and a comparison or two on the usual path.
  void note(std::uint8_t cause, std::int64_t start, std::int64_t end) {
    const std::uint8_t c = kClassOf[cause < kClassOf.size() ? cause : kOtherRun];
    if (c == open_.cls && c != kNoRun &&
        (start <= open_.end || (c == kFlightRun && start - open_.end < gap_ns_))) {
      open_.busy += end - start;
      if (end > open_.end) open_.end = end;
      return;
    }
    // The path's time between the flight's waits (segments back to back, one a round trip):
    // what follows decides whether the flight goes on. (One run a transfer, not one an ACK.)
    if (c == kOtherRun && (open_.cls == kFlightRun || open_.cls == kOtherRun) && start <= open_.end + gap_ns_) return;
    open(c, start, end);
  }
  // The time [start, end) of class `cause` (a LimitCause's value or kFlightRun) noted last was
  // not of that class after all (HalfFlow::undo_turn: a turn's round trip, the path's; a D-SACK's
  // undone recovery): taken out of the open run, which ends at `start`, or is no run when it
  // began there or after. A run already finished is left as it is.
  void retract(std::uint8_t cause, std::int64_t start, std::int64_t end) {
    const std::uint8_t c = kClassOf[cause < kClassOf.size() ? cause : kOtherRun];
    if (c != open_.cls || c == kOtherRun || end <= start || end < open_.end) return;
    if (start <= open_.start) {
      open_.cls = kOtherRun;  // no run: closed without being kept
      open_.busy = 0;
    } else {
      open_.busy -= std::min(open_.busy, open_.end - start);
      open_.end = start;
    }
  }
  // The run still open, finished (the report: nothing follows it).
  void finish() {
    close();
    open_ = Run{0, 0, 0, kNoRun};
  }
  std::vector<Run>& finished() noexcept { return finished_; }
  // No run finished later starts before this.
  std::int64_t horizon() const noexcept { return open_.cls != kNoRun ? open_.start : last_end_; }

 private:
  static constexpr std::uint8_t kNoRun = 0xff;
  // A cause's run class: waits, stalls, the flight, or other.
  static constexpr std::array<std::uint8_t, kOtherRun + 1> kClassOf = [] {
    std::array<std::uint8_t, kOtherRun + 1> t{};
    t.fill(kOtherRun);
    for (const core::LimitCause c : {core::LimitCause::peer_reply, core::LimitCause::delayed_ack, core::LimitCause::loss,
                                     core::LimitCause::receiver_window}) {
      t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c);
    }
    t[kFlightRun] = kFlightRun;
    return t;
  }();
  void close() {
    if (open_.cls == kNoRun) return;
    last_end_ = open_.end;
    if (open_.cls != kOtherRun) finished_.push_back(open_);
  }
  // Closes the open run and opens one of class c (out of line: the rare path).
  void open(std::uint8_t c, std::int64_t start, std::int64_t end);
  std::int64_t gap_ns_;
  Run open_{0, 0, 0, kNoRun};
  std::int64_t last_end_ = 0;
  std::vector<Run> finished_;
};

class ReplyLink {
 public:
  // Keeps at most this many runs a side unsettled (a direction idle for long while the other
  // stalls: a download's requester): past it the oldest half are settled as they are.
  static constexpr std::size_t kMaxKept = 1024;

  explicit ReplyLink(std::int64_t threshold_ns = 0) {
    for (Pairing& p : pairs_) p.threshold_ns = threshold_ns;
  }

  // After a packet: the runs each direction (a -> b, b -> a) finished, and each one's horizon
  // (RunRecorder::horizon, or earlier while it holds spans not yet committed). The recorders'
  // finished runs are taken.
  void take(RunRecorder& a, std::int64_t a_horizon, RunRecorder& b, std::int64_t b_horizon);
  // The links of a connection whose directions' reports are `ab` (a -> b) and `ba` (b -> a), with
  // the recorders' open runs finished (copies: the scanner may go on).
  void settle(RunRecorder a, RunRecorder b, DirectionReport& ab, DirectionReport& ba) const;

 private:
  // The stall classes a wait is matched against: delayed_ack, loss, receiver_window, the flight.
  static constexpr std::size_t kStallSlots = 4;
  static std::size_t slot_of(std::uint8_t cls) noexcept;
  struct Wait {
    std::int64_t start, end;
    std::array<std::int64_t, kStallSlots> overlap{};  // with the peer's stalls, by slot
  };
  // One direction's waits against the other's stalls.
  struct Pairing {
    std::int64_t threshold_ns = 0;
    // Unsettled, oldest first (vectors: a connection that never links allocates nothing).
    std::vector<Wait> waits;
    std::vector<Run> stalls;
    std::uint64_t wait_count = 0;
    std::int64_t wait_ns = 0;
    std::array<std::uint64_t, kStallSlots> linked_waits{};
    std::array<std::int64_t, kStallSlots> overlap_ns{};
    void add_wait(const Run& r);
    void add_stall(const Run& r);
    void settle_wait(const Wait& w);
    // Settles the waits that end by `stalls_horizon`, drops the stalls that end by `waits_horizon`.
    void prune(std::int64_t stalls_horizon, std::int64_t waits_horizon);
    void settle_all();
  };
  static void match(Wait& w, const Run& s);
  static void route(std::vector<Run>& runs, Pairing& as_waiter, Pairing& as_staller);
  static std::optional<PeerStallLink> link_of(const Pairing& p, core::LimitCause staller_flight);
  // pairs_[0]: a -> b's waits against b -> a's stalls; pairs_[1]: b -> a's against a -> b's.
  std::array<Pairing, 2> pairs_;
};

}  // namespace ackstall::pcap::detail
