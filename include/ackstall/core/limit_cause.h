// ackstall/core/limit_cause.h — what limits a TCP transfer at a given moment: one vocabulary for
// the capture diagnosis (pcap/stall_scanner.h attributes every moment of a transfer to one cause),
// the simulator's own accounts and reports. One closed table (kLimitCauseTable): each cause with
// its key, its prose, the rule that defines it (docs/SCAN.md "Where the time went") and whether
// it is a problem, one a fix can remove.
//
//   network          the path sets the pace: the sender sends back to back (line rate) or waits
//                    one round trip for the ACKs that clock out its flight (congestion window,
//                    or a flight too small to fill the path)
//                    (RFC 5681 §3.1; T-RAT's "bandwidth" and "congestion" limited classes:
//                    Zhang, Breslau, Paxson, Shenker, SIGCOMM 2002);
//   loss             recovery from a loss: the wait for a retransmission timeout and the time
//                    until the lost data is acknowledged (RFC 6298, RFC 5681 §3.2, RFC 6675);
//   receiver_window  the receiver's advertised window is full or zero, or the sender waits for
//                    a window update (RFC 9293 §3.8.6; T-RAT "receiver window limited");
//   send_buffer      in flight plateaus below both windows: the sender's socket buffer or
//                    Winsock's per-send quota holds the rest (T-RAT "transport limited";
//                    Winsock KB214397/KB823764, docs/STACKS.md §1);
//   delayed_ack      the sender waits on a lone segment whose ACK the receiver holds for its
//                    delayed-ACK timer (RFC 1122 §4.2.3.2: at most 0.5 s, every second
//                    full-sized segment ACKed at once; docs/STACKS.md §1-§4);
//   sender_app       nothing in flight, nothing sent: the sending application did not write
//                    (T-RAT "application limited");
//   peer_reply       the sender waits for the peer's data: request/response think time (the
//                    ACK came with, or after, the peer's reply);
//   not_captured     time around segments missing from the capture: what limited it is not in
//                    the capture.
//
// A new cause: one enumerator and one row of kLimitCauseTable (in enum order; checked below and by
// tests/core/vocabulary_test.cc). Everything else (counts, arrays, names) is read from the table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ackstall/core/closed_table.h"

namespace ackstall::core {

enum class LimitCause : std::uint8_t {
  network,
  loss,
  receiver_window,
  send_buffer,
  delayed_ack,
  sender_app,
  peer_reply,
  not_captured,
};

struct LimitCauseRow {
  LimitCause cause;
  std::string_view key;          // JSON and command line: "receiver_window"
  std::string_view description;  // prose: "limited by the receiver's window"
  std::string_view rule;         // the rule that defines it, with its source (one line)
  // A problem: something a fix can remove (a loss, a window, a buffer, a held ACK, a capture that
  // dropped segments), not the path's own limit or the applications' pace. Only a problem cause
  // is named "the problem" by scan's diagnosis (pcap/diagnosis.h) and live attribution
  // (live/attribution.h), and only one costing kProblemShare or more there.
  bool problem;
};

inline constexpr LimitCauseRow kLimitCauseTable[] = {
    {LimitCause::network, "network", "the network (line rate, congestion window or round trips)",
     "segments back to back, or a wait of one round trip for ACKs that clock out the congestion window "
     "(RFC 5681 3.1; T-RAT bandwidth/congestion limited)", false},
    {LimitCause::loss, "loss", "loss and recovery",
     "a retransmission, and the time until the lost data is ACKed (RFC 6298, RFC 5681 3.2, RFC 6675)", true},
    {LimitCause::receiver_window, "receiver_window", "the receiver's window",
     "window full or zero, or a wait ended by a window update (RFC 9293 3.8.6; T-RAT receiver limited)", true},
    {LimitCause::send_buffer, "send_buffer", "the sender's buffer or per-send quota",
     "in flight plateaus below both windows while the sender waits for ACKs (T-RAT transport limited; "
     "Winsock KB214397, STACKS 1)", true},
    {LimitCause::delayed_ack, "delayed_ack", "delayed-ACK stalls",
     "a lone segment's ACK held beyond the path's round trip, at most 0.5 s (RFC 1122 4.2.3.2; STACKS 1-4)", true},
    {LimitCause::sender_app, "sender_app", "the sending application",
     "nothing in flight and nothing sent (T-RAT application limited)", false},
    {LimitCause::peer_reply, "peer_reply", "the peer's reply (request/response)",
     "nothing sent until the peer's data arrived, or the ACK came with the peer's data (request/response)", false},
    {LimitCause::not_captured, "not_captured", "not in the capture",
     "ACKs for data the capture never saw (the capture dropped segments)", true},
};

inline constexpr std::size_t kLimitCauseCount = std::size(kLimitCauseTable);

// Every cause, in enum order (from the table).
inline constexpr std::array<LimitCause, kLimitCauseCount> kLimitCauses = column_of(kLimitCauseTable, &LimitCauseRow::cause);
static_assert(in_enum_order(kLimitCauseTable, &LimitCauseRow::cause), "kLimitCauseTable: one row per LimitCause, in enum order");

constexpr const LimitCauseRow& row_of(LimitCause c) noexcept { return kLimitCauseTable[static_cast<std::size_t>(c)]; }

// "receiver_window": the key used in JSON and on the command line.
constexpr std::string_view to_string(LimitCause c) noexcept { return row_of(c).key; }
// "the receiver's window": for prose ("limited by ...").
constexpr std::string_view describe(LimitCause c) noexcept { return row_of(c).description; }
// Is the cause a problem (LimitCauseRow::problem): one a fix can remove?
constexpr bool is_problem(LimitCause c) noexcept { return row_of(c).problem; }
// The rule that defines the cause, with its source (one line).
constexpr std::string_view rule_of(LimitCause c) noexcept { return row_of(c).rule; }
// The cause whose key is `key`, if any.
constexpr std::optional<LimitCause> parse_limit_cause(std::string_view key) noexcept {
  for (const auto& r : kLimitCauseTable)
    if (r.key == key) return r.cause;
  return std::nullopt;
}

// Time (ns) attributed to each cause.
using CauseTimes = std::array<std::int64_t, kLimitCauseCount>;

}  // namespace ackstall::core
