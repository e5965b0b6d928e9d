// ackstall/live/attribution.h — what limited a TCP socket between two kernel samples, in the
// causes and words `scan` uses (core/limit_cause.h), with a severity and the fixes that fit the
// stacks. Pure: no syscall, testable on synthetic samples.
//
// Rules, each from the kernel's own accounting (net/ipv4/tcp.c tcp_get_info_chrono_stats,
// Linux 4.10 "tcp: instrument tcp sender limits chronographs"):
//   the interval's time = busy (tcpi_busy_time: data in flight or queued) + idle;
//   receiver_window  = delta tcpi_rwnd_limited (the peer's window stopped the sender), and the
//                      rest of the busy time when data waited unsent at both samples while in
//                      flight left no room for a full segment in the peer's window, or filled 3/4
//                      of it, with room in the congestion window
//                      (scan's "window full");
//   send_buffer      = delta tcpi_sndbuf_limited (everything written was sent and the writer
//                      waits for buffer space), and the rest of the busy time when the write
//                      queue held 3/5 of SO_SNDBUF at both samples while in flight stayed below
//                      3/4 of both windows, the congestion window at both samples (scan's plateau
//                      rule; the chronograph misses slow start);
//   loss             = one smoothed round trip per segment retransmitted in the interval
//                      (RFC 6675: fast recovery repairs in about a round trip), the RTO instead
//                      while the socket is in the Loss state (RFC 6298), at most the busy time left;
//                      with --events, the recoveries the tracepoints timed instead (apply_event_loss);
//   delayed_ack      = the part of the busy and send-buffer time that the ACK hold adds: when the
//                      smoothed RTT exceeds the path's minimum by at least kMinAckHold and 3x,
//                      while at most 2 segments are unacknowledged at one of the two samples (the
//                      hold dominates the time, so a sample lands in it; RFC 1122 4.2.3.2: a receiver
//                      ACKs every second full segment at once and holds a lone one) and the
//                      congestion window is not what stops it, the share (srtt - min_rtt) / srtt
//                      of that time waits for held ACKs;
//   network          = the rest of the busy time (line rate, or waiting for ACKs one path
//                      round trip away);
//   sender_app       = idle time (nothing in flight, nothing queued: the application did not write),
//                      and a whole interval without data of a socket that has sent more than it
//                      received (a sender between its writes).
// The causes sum to the interval. A socket that only received data in the interval is a receiver:
// its time is the peer's to explain, no cause is attributed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/live/tcp_sample.h"

namespace ackstall::live {

// As scan's diagnosis (pcap/diagnosis.h kProblemShare): a cause costing this share is a problem.
inline constexpr double kProblemShare = 0.05;
// A smoothed RTT this far above the path's minimum, with at most 2 segments out, is an ACK hold:
// the shortest delayed-ACK timer is Linux's 40 ms (docs/STACKS.md §4), but the smoothed RTT
// averages held ACKs with prompt ones (RFC 6298: alpha 1/8), so a hold shows as a fraction of it
// (measured: srtt 10-12 ms over a 4 us loopback path, 8 KiB send buffer, tests/live).
inline constexpr std::int64_t kMinAckHoldNs = 5'000'000;

enum class Role : std::uint8_t { idle, sender, receiver };
enum class Severity : std::uint8_t { none, minor, major };  // < 5 %, 5-25 %, >= 25 % of the time
std::string_view to_string(Role r) noexcept;
std::string_view to_string(Severity s) noexcept;

struct Attribution {
  std::int64_t interval_ns = 0;
  Role role = Role::idle;
  core::CauseTimes times{};  // ns per cause, summing to interval_ns for a sender
  std::uint64_t bytes_acked = 0, bytes_received = 0;  // in the interval
  std::uint32_t retransmitted = 0;                    // segments in the interval
  std::int64_t ack_hold_ns = 0;                       // srtt - min_rtt when the hold rule fired
  bool chrono_missing = false;                        // kernel without tcpi_busy_time (< 4.10)
};

// BEFORE and AFTER must be the same socket (key.cookie), AFTER later. BUSY_CARRY (optional, one
// per socket, starting at 0): the chronographs' busy time read beyond one interval carries into
// the next, so that their jiffy ticks do not show as idle time (see attribution.cc).
Attribution attribute(const Sample& before, const Sample& after, std::int64_t* busy_carry = nullptr);

// --events: STALL_NS of delayed-ACK stalls the tracepoints timed in the interval (each ACK's wait
// beyond the path: trace_events.h) replace the smoothed-RTT estimate: that much network and
// send-buffer time (in that order) becomes delayed_ack, at most all of it. Returns the stall time
// left over (a stall longer than the interval: the caller carries it into the next).
// REPLACE false: the estimate was replaced before (a connection's total), all of STALL_NS moves.
std::int64_t apply_event_stalls(Attribution& a, std::int64_t stall_ns, bool replace = true);

// --events: LOSS_NS of loss recovery the tracepoints timed (from a retransmission until the
// peer ACKed everything sent before it: trace_events.h) replace the round-trip-per-retransmission
// estimate: the estimate goes back to the network, then that much network, send-buffer,
// receiver-window and delayed-ACK time (in that order) becomes loss, at most all of it. Returns
// the recovery time left over (the caller carries it into the next interval).
// REPLACE false: the estimate was replaced before (a connection's total), only LOSS_NS moves.
std::int64_t apply_event_loss(Attribution& a, std::int64_t loss_ns, bool replace = true);

// Several intervals of one socket added up (the summary).
void accumulate(Attribution& total, const Attribution& next);

struct Verdict {
  core::LimitCause dominant = core::LimitCause::network;
  std::optional<core::LimitCause> problem;  // the costliest problem cause >= kProblemShare
  double problem_share = 0;
  Severity severity = Severity::none;
  std::string peer;                 // what the kernel shows of the peer's stack ("fits ...")
  std::vector<std::string> fixes;   // best first, for this Linux sender and that peer
};

// The verdict on ATTRIBUTION, with NOW (the later sample) for the socket's settings.
Verdict judge(const Attribution& attribution, const Sample& now);

}  // namespace ackstall::live
