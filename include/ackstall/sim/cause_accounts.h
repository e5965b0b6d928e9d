// ackstall/sim/cause_accounts.h — where a simulated transfer's time went, in core's causes
// (core/limit_cause.h), from the simulator's own trace: every moment from the sender's first data
// segment to the last ACK of new data, as the sender's host sees it (its segments at their first
// bit on the wire, the receiver's at their last bit in), goes to one cause. The simulator knows
// why its sender waited: a wait longer than the stall threshold takes the cause of the stall the
// simulator marked over it (core/stall_kind.h's table: delayed_ack and nagle_hold count toward
// delayed_ack, quota_wait toward send_buffer, wakeup and select_teardown toward sender_app), so
// no capture is encoded and no scanner runs (docs/ARCHITECTURE.md "data's path: Scenario").
//
// The rules, in the scanner's terms (docs/SCAN.md "Where the time went", so that `ackstall scan`
// of the run's capture at the sender names the same causes; tests/analysis/sim_causes_test.cc
// holds the two to agree):
//   receiver_window  the receiver's last window was 0, or the sender had filled it when it waited;
//   loss             from a retransmission until the data sent before it is ACKed (RFC 6675);
//   sender_app       nothing in flight until the next data (idle after the transfer is not
//                    part of it; its first round trip is the flight's, all of it when the last
//                    segment had no PSH (idle mid-write: data was queued), and all of it the
//                    network's when a full segment left a frame time after the one before,
//                    queued behind it at a shaper: the scanner's rules), or a pause of more than
//                    the threshold (and the sender lag) with data in flight and none of the
//                    simulator's stalls over it;
//   a stall          a wait for an ACK longer than the path's floor (the shortest data-to-ACK or
//                    SYN-to-SYN/ACK time) by the threshold: beyond the floor, the cause of the
//                    marked stall over it by priority delayed_ack > receiver_window (the window
//                    was full) > send_buffer > sender_app (a quota wait holds the delayed ACK
//                    that ends it: the timer is the cause), else network (a late ACK: a queue,
//                    a busy host);
//   the flight       the rest (segments leaving, prompt waits for ACKs) goes to one cause, the
//                    flight's limit: receiver_window when two thirds of 8 or more bursts of new
//                    data reached the edge of the window the latest ACK offered (the scanner's
//                    window_edge.h), else network when the path was full (the goodput over this
//                    time at least 90 % of the pace of back-to-back full segments, the median
//                    spacing of two at the sender, shorter than a stall), else send_buffer when,
//                    with no loss, the flight at 4 or more prompt waits stayed at most half the
//                    receiver's window and the sending application sat blocked by the
//                    send-buffer accounting (quota waits) for a quarter of it or more, else
//                    network (the congestion window, RFC 5681 3.1).
// Times are the sender host's; the stalls marked at the receiver (a delayed-ACK timer) are
// matched by overlap. The events are taken in time order as soon as no later frame can come
// before them (WireFrame::reported), and the waits whose cause the marked stalls decide (a pause,
// a stall) are judged a threshold after they end: every stall over a wait is reported by then.
// Cost: O(1) per frame (no capture encoded, no flow table); memory: the frames held for time
// order (the receiver's until they reach the sender), the waits to be judged, the segments in
// flight, a 18 KiB histogram. Measured: docs/BENCHMARKS.md "Issue 41: the simulator's own causes".
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>

#include "ackstall/core/limit_cause.h"
#include "ackstall/core/recent_spacings.h"
#include "ackstall/core/ring.h"
#include "ackstall/core/units.h"
#include "ackstall/sim/trace.h"

namespace ackstall::sim {

struct CauseAccounts {
  core::CauseTimes cause_ns{};  // sums to duration_ns
  std::int64_t duration_ns = 0;
  std::int64_t rtt_floor_ns = 0;   // the shortest data-to-ACK time at the sender
  std::uint64_t idle_periods = 0;  // waits with nothing in flight that more data ended
  std::uint64_t stalls = 0;        // waits beyond the floor by the threshold
  std::int64_t bytes_acked = 0;
};

class CauseAccountant final : public TraceSink {
 public:
  // A wait longer than `stall_threshold` is a stall (ExperimentConfig::stall_threshold).
  explicit CauseAccountant(core::StallThreshold stall_threshold);
  void on_frame(const WireFrame& frame) override;
  void on_stall(const StallMarker& stall) override;
  // on_frame's work on the fields it reads, for a frame that reached the wire: the sender's at its
  // first bit out (`stamp` = WireFrame::time), the receiver's at its last bit in (WireFrame::arrival).
  // Of the sender's frames the accounts read no `ack` or `window`, of the receiver's no `seq`, `len`
  // or `retransmit` (on_sender, on_receiver): a caller may pass 0 for those.
  // The simulator's direct feed (simulation.cc): defined inline in src/sim/cause_accounts_frame.h,
  // so only src/sim calls it.
  inline void on_wire(bool from_sender, std::int64_t stamp, std::int64_t reported, std::uint32_t seq, std::uint32_t ack,
                      std::uint32_t len, std::uint16_t window, std::uint8_t flags, bool retransmit,
                      std::optional<std::uint8_t> wscale);
  // After the run: the accounts.
  CauseAccounts finish();

 private:
  // One event at the sender's host: its data leaving, or the receiver's segment arriving.
  struct Event {  // 32 bytes
    std::int64_t t;
    std::uint32_t order;  // report order, for equal stamps (wraps after 2^32 frames: ties only)
    std::uint32_t seq, ack, len;
    std::uint16_t window;
    std::uint8_t flags;
    bool from_sender, retransmit;
    std::optional<std::uint8_t> wscale;  // a SYN's window-scale option
    bool operator>(const Event& o) const noexcept {
      return t != o.t ? t > o.t : static_cast<std::int32_t>(order - o.order) > 0;
    }
  };
  void take_until(std::int64_t upto);
  void on_sender(const Event& e);
  void on_receiver(const Event& e);
  std::int64_t unwrap(std::uint32_t seq, std::uint32_t iss) const noexcept;
  std::int64_t in_flight() const noexcept { return data_max_ > snd_una_ ? data_max_ - snd_una_ : 0; }
  // A wait whose cause the marked stalls over it decide (a pause with data in flight, a stall),
  // its time taken now and its cause judged once every stall over it is in (judge_until).
  struct Judgement {
    std::int64_t t = 0;       // the event that ended it: judged once a frame is reported hold_ns_ later
    std::int64_t from = 0, to = 0;
    std::int64_t amount = 0;  // its time in the accounts
    bool stall = false;       // a stall (else network), else a pause (else sender_app)
    bool window_full = false;
  };
  void defer(const Judgement& j);
  void judge_until(std::int64_t upto);
  std::int64_t settled() const noexcept;
  void prune_stalls(std::int64_t behind);
  // The cause of the marked stalls over [from, to] (by the priority above), if any.
  bool marked_cause(std::int64_t from, std::int64_t to, core::LimitCause& cause) const;
  void account(core::LimitCause c, std::int64_t until);
  void flight(std::int64_t until);
  void commit_idle();
  void note_floor(std::int64_t ns);
  void note_spacing(std::int64_t ns);
  std::int64_t median_spacing() const;
  static std::size_t spacing_bucket(std::int64_t ns) noexcept;
  bool paced_after_previous(std::int64_t since_last_data) const;
  void update_lag() noexcept;  // lag_ns_ and pause_lag_ns_ from handshake_rtt_ns_ and floor_ns_
  void note_edge_data(std::int64_t now, std::int64_t data_end);

  std::int64_t threshold_ns_;
  std::int64_t hold_ns_;  // how long an event is held: the threshold, at least 1 ms
  core::Ring<Event> from_sender_, from_receiver_;  // held for time order (on_frame)
  std::array<std::int64_t, 2> last_t_{std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::min()};  // the latest stamp queued each way
  std::uint32_t order_ = 0;
  std::int64_t due_ = std::numeric_limits<std::int64_t>::max();  // the earliest event held
  std::deque<StallMarker> stalls_;  // marked stalls longer than the threshold, not yet behind the accounts
  core::Ring<Judgement> pending_;    // waits to be judged, in time order
  std::int64_t quota_ns_ = 0;  // the application blocked by the send-buffer accounting, in all

  bool sender_syn_ = false, receiver_syn_ = false;
  std::uint32_t iss_s_ = 0;
  std::int64_t syn_ns_ = 0, handshake_rtt_ns_ = -1;
  // The sender's lag (update_lag), and 4/3 of it, the slack a pause with data in flight is given.
  std::int64_t lag_ns_ = 0, pause_lag_ns_ = 0;
  std::optional<std::uint8_t> sender_wscale_, receiver_wscale_;
  std::int64_t snd_una_ = 0, data_max_ = 0, max_seg_ = 0;
  bool have_window_ = false;
  std::int64_t window_raw_ = 0;
  bool in_recovery_ = false, recovered_ = false;
  std::int64_t max_window_ = 0, max_flight_at_wait_ = 0;  // the window offered; the flight at prompt waits
  std::uint64_t flight_waits_ = 0;
  std::int64_t recover_ = 0;
  std::int64_t last_tx_ns_ = 0;
  std::int64_t idle_since_ = 0;  // when the last ACK left nothing in flight
  bool any_data_ = false;
  struct Sent {
    std::int64_t end, t;
  };
  core::Ring<Sent> sent_;  // segments in flight, for the floor
  std::int64_t floor_ns_ = -1;  // the shortest data-to-ACK (or SYN to SYN/ACK) time
  // Spacings of consecutive full-size new-data segments: a log histogram (flat memory) whose
  // median is the link's pace at the sender, its serialisation of a frame and the host's cost.
  std::array<std::uint32_t, 128 * 36> spacing_hist_{};
  std::int64_t last_spacing_ns_ = -1;  // the latest spacing and its bucket (note_spacing)
  std::size_t last_bucket_ = 0;
  core::RecentSpacings recent_;  // the last 8 spacings
  bool last_data_full_ = false, last_data_psh_ = true;
  // The window's edge (ACK number + window) of the last 64 ACKs, and the bursts of new data that
  // reached it.
  struct Edge {
    std::int64_t t = 0, edge = 0;
  };
  std::array<Edge, 64> edges_{};
  std::size_t edges_next_ = 0;
  bool ack_since_data_ = false, in_burst_ = false, at_edge_ = false;
  std::uint64_t bursts_ = 0, edge_bursts_ = 0;
  std::int64_t last_data_ns_ = 0;

  bool started_ = false;
  std::int64_t acct_ns_ = 0;
  core::CauseTimes cause_ns_{};
  std::int64_t idle_ns_ = 0;  // pending sender_app time: counted once more data follows
  std::int64_t flight_ns_ = 0;
  CauseAccounts out_;
};

}  // namespace ackstall::sim
