// ackstall/live/trace_events.h — the four tracepoints `watch --events` reads, decoded through
// their format files (trace_format.h), and the delayed-ACK stalls they show as they happen:
//   tcp:tcp_probe             every segment a socket takes in (its ACKs, at the sender): snd_una
//                             and snd_nxt before it, the peer's window, srtt (net/ipv4/tcp_input.c);
//   sock:sock_send_length     each send's length, by socket (struct sock address);
//   tcp:tcp_retransmit_skb    a retransmission;
//   sock:inet_sock_set_state  a state change (the socket's ports, its close).
// A stall: the sender had data out and waited at least the threshold beyond the path's round
// trip (the smallest smoothed RTT tcp_probe showed on that socket, or the shortest wait seen if
// larger) for the next ACK after its last send or ACK
// (scan's rule: pcap/stall_scanner.h). With a retransmission in between, it is loss, not the
// receiver's delayed ACK. As scan (pcap/half_flow.cc settle_held), a delayed-ACK stall counts only
// once the ACK is seen to release the sender: data leaves after it (a later probe's snd_nxt moved
// without a write: queued data the ACK let go, Nagle's) or the next write or close comes within
// the path's round trip plus half the threshold; a sender that goes on later waited on its
// application, not the ACK. Pure: records in, stalls out.
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/core/limit_cause.h"
#include "ackstall/core/units.h"
#include "ackstall/live/trace_format.h"

namespace ackstall::live {

// tcp:tcp_cong_state_set (Linux 6.0+; a kernel without it times loss recoveries from the probes
// and retransmissions, below) is the kernel's own congestion state: Open, Disorder, CWR, Recovery, Loss.
inline constexpr std::array<std::string_view, 5> kTraceEvents = {"tcp/tcp_probe", "sock/sock_send_length",
                                                                  "tcp/tcp_retransmit_skb", "sock/inet_sock_set_state",
                                                                  "tcp/tcp_cong_state_set"};

enum class TraceKind : std::uint8_t { probe, send, retransmit, set_state, cong_state };

struct TraceEvent {
  TraceKind kind = TraceKind::probe;
  std::uint64_t ts_ns = 0;
  std::uint64_t sk = 0;  // struct sock address: one socket across the events
  std::uint16_t sport = 0, dport = 0;
  std::string local, remote;         // tcp_probe: "addr:port"
  std::uint32_t snd_nxt = 0, snd_una = 0;
  std::uint32_t srtt_us = 0;         // tcp_probe: the smoothed RTT (0: the field is absent)
  std::int64_t length = 0;           // sock_send_length: bytes sent (negative: an error)
  int new_state = 0;                 // inet_sock_set_state: TCP state; tcp_cong_state_set: TCP_CA_*
};

// The record layouts of the events this kernel has. An event or field it lacks is named in
// `missing` (one line each) and its records are not decoded; the others still are.
class EventSchema {
 public:
  // FORMATS: each of kTraceEvents the kernel has, parsed from its format file.
  static EventSchema make(const std::vector<EventFormat>& formats);
  std::optional<TraceEvent> decode(std::uint64_t ts_ns, std::span<const std::byte> record) const;
  const std::vector<std::string>& missing() const noexcept { return missing_; }

 private:
  struct Known {
    TraceKind kind;
    EventFormat format;
  };
  std::map<std::uint16_t, Known> by_id_;
  std::vector<std::string> missing_;
};

struct EventStall {
  std::uint64_t ts_ns = 0;  // when the ACK came
  std::string local, remote;
  std::int64_t wait_ns = 0;             // from the last send or ACK to this ACK
  std::int64_t path_ns = 0;             // the shortest such wait on this socket (the path)
  std::int64_t send_length = 0;         // the last send before the wait (0: none seen)
  std::uint32_t outstanding = 0;        // bytes out when the ACK came
  core::LimitCause cause = core::LimitCause::delayed_ack;  // or loss
};

// Loss recovery time the events timed: from the first retransmission while the kernel's
// congestion state is Recovery or Loss until it leaves them (tcp_cong_state_set: it leaves once
// everything sent before is ACKed, RFC 6675's RecoveryPoint, scan's rule: pcap/half_flow.cc). On a kernel without that
// tracepoint: from the first retransmission until an ACK covers that point, or the
// peer has ACKed the FIN (FIN_WAIT2). tcp_probe shows snd_una before the ACK it fires for, so the
// covering ACK is known at the next one, and the recovery ends at the covering ACK's probe.
// Reported as it passes: a recovery still going on at take_recoveries() gives the time up to now
// (the kernel's states: the state holds until it changes), else to the socket's latest ACK.
struct EventRecovery {
  std::uint64_t until_ns = 0;  // the time is counted up to here
  std::string local, remote;
  std::int64_t duration_ns = 0;
};

class StallDetector {
 public:
  explicit StallDetector(core::StallThreshold threshold) : threshold_ns_(threshold.count()) {}
  // Events in time order (per CPU buffers merged by the caller).
  void feed(const TraceEvent& e);
  std::vector<EventStall> take();  // the stalls found since the last take
  // Recovery time since the last take, per socket; NOW_NS (the trace clock's now, 0: unknown):
  // with the kernel's states a recovery going on is counted up to it.
  std::vector<EventRecovery> take_recoveries(std::uint64_t now_ns = 0);
  std::uint64_t events() const noexcept { return events_; }
  std::uint64_t sends() const noexcept { return sends_; }
  std::uint64_t acks() const noexcept { return acks_; }  // tcp_probe: segments the watched sockets took in

 private:
  struct Socket {
    std::string local, remote;
    std::uint64_t last_activity = 0, last_send_ts = 0;
    std::int64_t last_send = 0;
    std::int64_t shortest_wait = -1;
    std::int64_t min_srtt = -1;
    bool retransmitted = false;
    std::optional<EventStall> held;  // a delayed-ACK stall not yet known to have released the sender
    std::uint32_t held_nxt = 0;      // snd_nxt when its ACK came
    std::uint64_t last_probe_ts = 0;
    std::uint32_t snd_nxt = 0;         // at the last probe
    bool kernel_recovery = false;      // tcp_cong_state_set: in Recovery or Loss
    std::uint64_t recovery_start = 0;  // 0: not in a recovery
    std::uint64_t counted_to = 0;      // the recovery's time is reported up to here
    std::optional<std::uint32_t> recover_point;
  };
  std::int64_t threshold_ns_;
  std::unordered_map<std::uint64_t, Socket> sockets_;
  std::vector<EventStall> stalls_;
  std::vector<EventRecovery> recoveries_;
  bool kernel_states_ = false;  // tcp_cong_state_set seen: recoveries are the kernel's
  void end_recovery(Socket& s, std::uint64_t at_ns);
  // The held stall, once the sender went on or did not in time (as seen at TS_NS).
  enum class Went : std::uint8_t { not_yet, written, at_the_ack };
  void settle(Socket& s, std::uint64_t ts_ns, Went went);
  std::uint64_t events_ = 0, sends_ = 0, acks_ = 0;
};

}  // namespace ackstall::live
