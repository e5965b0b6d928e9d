// ackstall/sim/ack_policy.h — the receiver's delayed-ACK rule, as a sans-IO unit.
//
// The endpoint tells the policy what happened (an in-order data segment arrived, the
// application read, an ACK left, the timer fired) and the policy answers with an AckDecision:
// ACK now, or (re)arm the delayed-ACK timer at an absolute time, or nothing. The endpoint owns
// the timer; the policy never schedules anything itself. Out-of-order data and FIN are ACKed at
// once by the endpoint for every policy: BSD tcp_input sets TF_ACKNOW for both (docs/STACKS.md
// §3), Linux enters quickack mode on out-of-order data (tcp_data_queue, §4); for a Linux FIN
// (tcp_fin only schedules the ACK) the immediate ACK is a simplification [I].
//
// Implementations (each its own header/source and test):
//   ack_bsd.h    — openbsd, freebsd, bsd_tick
//   ack_linux.h  — linux_2_6, linux, linux_pingpong
//   ack_count.h  — windows, ns3
#pragma once

#include "ackstall/sim/time.h"
#include "ackstall/sim/config.h"

#include <cstdint>
#include <memory>

namespace ackstall::sim {

struct AckDecision {
  bool ack_now = false;
  Nanos arm_at = Nanos::never();  // arm (or move) the delayed-ACK timer; never = leave as is
};

struct SegmentArrival {
  Nanos now;
  std::int64_t len = 0;          // payload bytes accepted in order
  bool psh = false;
  std::int64_t unacked = 0;      // rcv_nxt - rcv_wup after this segment: bytes not yet ACKed
  std::int64_t rcv_wnd = 0;      // current receive window (bytes)
  std::int64_t advmss = 0;       // our MSS (t_maxseg)
  Nanos rto = Nanos::s(1);       // the connection's current RTO (Linux caps ATO by it)
  Nanos srtt = Nanos::zero();    // smoothed RTT (zero = no sample yet)
  // Linux __tcp_ack_snd_check's second term: the window __tcp_select_window would offer now is
  // not smaller than the one last advertised (tp->rcv_wnd). Always true for other receivers.
  bool window_ok = true;
  bool window_grew = false;      // Linux tcp_grow_window raised rcv_ssthresh: icsk_ack.quick |= 1
};

struct AppRead {
  Nanos now;
  std::int64_t copied = 0;       // bytes the application just read
  std::int64_t unacked = 0;      // rcv_nxt - rcv_wup
  bool drained = false;          // receive queue now empty
};

class AckPolicy {
 public:
  virtual ~AckPolicy() = default;
  virtual AckDecision on_segment(const SegmentArrival& a) = 0;
  // Application read (Linux tcp_cleanup_rbuf). BSD: nothing (its window rule is separate).
  virtual AckDecision on_read(const AppRead&) { return {}; }
  // Any segment carrying our ACK left: a pending delayed ACK is satisfied (§3).
  virtual void on_ack_sent(std::int64_t segments_acked) = 0;
  // The receiver sent data (Linux pingpong detection).
  virtual void on_data_sent(Nanos) {}
  // The delayed-ACK timer fired: true = send the ACK.
  virtual bool on_timer() = 0;
  // A delayed ACK is owed (timer running).
  virtual bool pending() const = 0;
  // Linux icsk_ack.rcv_mss, the receiver's estimate of the peer's segment size
  // (tcp_initialize_rcv_mss, tcp_measure_rcv_mss), which __tcp_select_window rounds the window
  // to; 0 = not a Linux receiver (the window then rounds to our MSS).
  virtual std::int64_t rcv_mss() const noexcept { return 0; }
};

// `tick_phase`: bsd_tick's global fast-timeout tick phase in [0, tick) (drawn from the run's RNG).
std::unique_ptr<AckPolicy> make_ack_policy(const AckPolicyConfig& cfg, Nanos tick_phase);

}  // namespace ackstall::sim
