// ackstall/sim/tcp_endpoint.h — one TCP endpoint as a sans-IO state machine.
//
// Inputs: connect/listen, application send/read/close, a segment from the wire, a timer expiry.
// Outputs (appended to an Actions buffer the caller owns and reuses): segments to put on the
// wire, timer (re)arm/cancel requests, application notifications, stall markers. The endpoint
// never schedules anything and never sees the engine; time comes in as `now`.
//
// Composition (each policy is its own unit):
//   SendBufferAccounting (send_buffer.h)  — what the application may write, PSH placement
//   nagle_allows_short (nagle.h)          — Nagle variant
//   AckPolicy (ack_policy.h)              — receiver delayed-ACK rule
//   advertised_window / window_update_due (receive_window.h) — window and update-on-read
//   NewReno (congestion.h), RttEstimator (rtt.h)
// The output routine follows OpenBSD tcp_output (docs/STACKS.md §3): full segments go;
// a short segment that empties the buffer goes if Nagle allows; a window-limited short segment
// goes if len >= max_sndwnd / 2 (sender SWS avoidance) or it is a retransmission; FIN forces
// the last segment out; an owed ACK goes alone or piggybacked.
//
// Invariants (checked by invariant_violation(); asserted after every input in debug builds;
// tests/sim/tcp_endpoint_test.cc, tests/sim/invariants_test.cc after every simulation event):
//   1. Bytes reach read() exactly once and in order; read never returns more than was sent:
//      0 <= unread <= bytes received = rcv_nxt - 1 (- 1 after a FIN) <= what the peer sent.
//   2. snd_una <= snd_nxt <= snd_max <= data end + FIN; window values are never negative.
//   3. The retransmission timer is armed iff data (or SYN/FIN) is outstanding
//      (snd_una < snd_max), except while the persist timer runs: a window probe's byte is
//      outstanding with only the persist timer armed (tcp_output, t_force).
//   4. A delayed-ACK timer request is cancelled whenever any segment carrying an ACK leaves:
//      after such a segment no delayed ACK is owed and the delayed-ACK timer is not armed.
// Out-of-order segments wait in a ReassemblyQueue (reassembly.h) and are ACKed at once, as is
// every segment while the queue holds data; a retransmission that overlaps rcv_nxt is trimmed
// (BSD tcp_input's todrop). Simplifications (documented, not hidden): no SACK (recovery is
// NewReno's, one hole per round trip; after an RTO go-back-N, whose duplicates the receiver
// trims), no TIME_WAIT or RST handling, no urgent data.
#pragma once

#include "ackstall/sim/ack_policy.h"
#include "ackstall/sim/reassembly.h"
#include "ackstall/sim/receive_window.h"
#include "ackstall/sim/congestion.h"
#include "ackstall/sim/config.h"
#include "ackstall/sim/trace.h"
#include "ackstall/sim/rtt.h"
#include "ackstall/sim/segment.h"
#include "ackstall/sim/send_buffer.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace ackstall::sim {

enum class TimerKind : std::uint8_t { rexmt = 0, delack = 1, persist = 2 };
inline constexpr int kTimerKinds = 3;

struct TimerRequest {
  TimerKind kind;
  Nanos at;  // Nanos::never() = cancel
};

struct Actions {
  std::vector<Segment> out;
  std::vector<TimerRequest> timers;
  std::vector<StallMarker> stalls;
  bool writable = false;   // wake a writer waiting on the send buffer (FD_WRITE etc.)
  bool readable = false;   // in-order data (or EOF) is ready for read()
  bool connected = false;  // the handshake completed on this endpoint
  void clear() noexcept {
    out.clear();
    timers.clear();
    stalls.clear();
    writable = readable = connected = false;
  }
};

struct EndpointCounters {
  std::uint64_t data_segments = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t pure_acks = 0;
  std::uint64_t window_updates = 0;
  std::uint64_t delayed_acks = 0;
  std::uint64_t rto_fires = 0;
  std::int64_t bytes_received = 0;
};

struct EndpointParams {
  TcpProfile profile{};
  std::int32_t link_mtu = 1500;
  Nanos tick_phase = Nanos::zero();  // bsd_tick phase
  std::uint32_t ts_offset = 0;       // timestamp clock offset
};

class TcpEndpoint {
 public:
  explicit TcpEndpoint(const EndpointParams& params);

  void connect(Nanos now, Actions& a);   // active open: SYN
  void listen();                         // passive open
  SendOutcome send(Nanos now, std::int64_t len, bool nonblocking, Actions& a);
  void close(Nanos now, Actions& a);     // no more data: FIN after the last byte
  // setsockopt(TCP_NODELAY) by the application: Nagle off while set (BSD tcp_output's
  // TF_NODELAY test, nagle.h). Takes effect at the next output (the caller's send follows).
  void set_nodelay(bool on) noexcept { nodelay_ = on; }
  bool nodelay() const noexcept { return nodelay_; }
  // setsockopt(TCP_NODELAY, 1) between sends: Nagle off and what it holds goes out now (Linux
  // do_tcp_setsockopt: tcp_push_pending_frames).
  void push_nodelay(Nanos now, Actions& a);
  std::int64_t read(Nanos now, std::int64_t max, Actions& a);
  void on_segment(Nanos now, const Segment& s, Actions& a);
  void on_timer(Nanos now, TimerKind k, Actions& a);

  bool established() const noexcept { return state_ == State::established; }
  std::int64_t readable() const noexcept { return rcv_queue_; }
  bool eof() const noexcept { return fin_received_ && rcv_queue_ == 0; }
  std::int32_t maxseg() const noexcept { return static_cast<std::int32_t>(maxseg_); }
  bool timestamps() const noexcept { return ts_on_; }
  bool all_acked() const noexcept { return snd_una_ == snd_max_; }
  std::int64_t cwnd() const noexcept { return cc_.cwnd(); }
  std::int64_t snd_wnd() const noexcept { return snd_wnd_; }
  std::int64_t rcvbuf() const noexcept { return rcvbuf_; }
  std::int64_t snd_una() const noexcept { return snd_una_; }
  std::int64_t snd_max() const noexcept { return snd_max_; }
  std::int64_t rcv_nxt() const noexcept { return rcv_nxt_; }
  Nanos rto() const noexcept { return rtt_.rto(); }
  const EndpointCounters& counters() const noexcept { return ctr_; }
  const SendBufferAccounting& send_buffer() const noexcept { return sbuf_; }
  void set_send_buffer_size(std::int64_t size) noexcept { sbuf_.set_size(size); }  // SO_SNDBUF
  // Whether the endpoint believes timer `k` armed (its requests so far, minus expiries): the
  // simulation's Timer objects must agree (tests/sim/invariants_test.cc).
  bool timer_armed(TimerKind k) const noexcept;
  // nullptr, or the first invariant above that does not hold ("3: ...").
  const char* invariant_violation() const noexcept;

 private:
  enum class State : std::uint8_t { closed, listen, syn_sent, syn_rcvd, established };

  void output(Nanos now, Actions& a);
  void emit(Nanos now, Actions& a, std::int64_t len, bool fin, bool psh);
  void retransmit_una(Nanos now, Actions& a);  // fast retransmit / NewReno partial ACK
  void send_syn(Nanos now, Actions& a, bool with_ack);
  void arm(Actions& a, TimerKind k, Nanos at);
  void process_ack(Nanos now, const Segment& s, Actions& a);
  void apply(const AckDecision& d, Actions& a, Nanos now);
  void set_maxseg(std::int64_t peer_mss);
  core::TcpTimestamps timestamps(Nanos now, std::uint32_t ecr) const noexcept;
  std::int64_t data_end() const noexcept { return 1 + sbuf_.enqueued(); }
  std::int64_t window_to_advertise() const noexcept;
  struct CheckOnExit;                 // runs debug_check() when an input has been handled
  void debug_check() const noexcept;  // aborts on invariant_violation() unless NDEBUG

  TcpProfile prof_;
  std::int64_t own_mss_;  // MSS option we announce
  std::int64_t maxseg_;   // payload of a full segment (after timestamps)
  std::uint32_t ts_offset_;
  State state_ = State::closed;
  bool ts_on_ = false;
  int snd_scale_ = 0, rcv_scale_ = 0;
  bool want_wscale_ = false;

  SendBufferAccounting sbuf_;
  std::unique_ptr<AckPolicy> ack_;
  NewReno cc_;
  RttEstimator rtt_;

  // Send side.
  std::int64_t snd_una_ = 0, snd_nxt_ = 0, snd_max_ = 0;
  std::int64_t snd_wnd_ = 0, max_sndwnd_ = 0, snd_wl1_ = -1, snd_wl2_ = -1;
  std::int64_t snd_sml_ = 0;             // Minshall: end of the last short segment sent
  bool fin_queued_ = false, fin_sent_ = false;
  std::int64_t fin_seq_ = -1;
  bool timing_ = false;
  std::int64_t rtt_seq_ = 0;
  Nanos rtt_start_;
  std::int64_t rtt_una_ = 0;  // snd_una when the timed segment left (delivery-rate sample)
  Nanos last_rcv_ = Nanos::zero();
  bool force_ = false;                   // persist probe
  Nanos persist_backoff_ = Nanos::zero();
  Nanos nagle_since_ = Nanos::never();
  bool nodelay_ = false;                 // set_nodelay(): TCP_NODELAY overrides prof_.nagle
  bool rexmt_armed_ = false, persist_armed_ = false, delack_armed_ = false;

  // Receive side.
  std::int64_t rcv_nxt_ = 0, rcv_adv_ = 0, rcv_wup_ = 0;
  std::int64_t rcv_queue_ = 0;
  std::int64_t rcvbuf_;
  // Linux receivers (receive_window.h): tp->rcv_ssthresh and tp->rcv_wnd (the last offer).
  std::int64_t rcv_ssthresh_ = 0, rcv_wnd_last_ = 0;
  WindowInput window_input() const noexcept;
  bool fin_received_ = false;
  ReassemblyQueue reass_;                // out-of-order data (and FIN) past rcv_nxt
  // Bytes the receive buffer can still take behind rcv_nxt (unread data counts, reassembly not).
  std::int64_t rcv_room() const noexcept { return std::max<std::int64_t>(0, rcvbuf_ - rcv_queue_); }
  void accept_in_order(Nanos now, const Segment& s, std::int64_t len, Actions& a);
  std::uint32_t ts_recent_ = 0;
  bool ack_now_ = false;
  bool mark_window_update_ = false, mark_delayed_ = false;
  Nanos delack_since_ = Nanos::never();

  EndpointCounters ctr_;
};

}  // namespace ackstall::sim
