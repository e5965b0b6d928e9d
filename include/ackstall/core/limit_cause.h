// ackstall/core/limit_cause.h — what limits a TCP transfer at a given moment: one vocabulary for
// the capture diagnosis (pcap/stall_scanner.h attributes every moment of a transfer to one cause)
// and for reports. Each cause names the rule that defines it (docs/SCAN.md "Where the time went").
//
//   network          the path is full: the sender sends back to back (line rate) or waits one
//                    round trip for the ACKs that clock out its congestion window
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
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

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
inline constexpr std::size_t kLimitCauseCount = 8;

inline constexpr std::array<LimitCause, kLimitCauseCount> kLimitCauses = {
    LimitCause::network,     LimitCause::loss,       LimitCause::receiver_window, LimitCause::send_buffer,
    LimitCause::delayed_ack, LimitCause::sender_app, LimitCause::peer_reply,      LimitCause::not_captured};

// "receiver_window": the key used in JSON and on the command line.
std::string_view to_string(LimitCause c) noexcept;
// "the receiver's window": for prose ("limited by ...").
std::string_view describe(LimitCause c) noexcept;
// The rule that defines the cause, with its source (one line).
std::string_view rule_of(LimitCause c) noexcept;

// Time (ns) attributed to each cause.
using CauseTimes = std::array<std::int64_t, kLimitCauseCount>;

}  // namespace ackstall::core
