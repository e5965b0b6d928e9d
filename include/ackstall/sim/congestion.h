// ackstall/sim/congestion.h — congestion window: initial, after idle, slow start, congestion
// avoidance, NewReno fast retransmit / fast recovery. Byte counts, per-ACK increase.
//
//   initial   — profile segments, or RFC 3390 min(4*mss, max(2*mss, 4380)) (§3).
//   idle      — OpenBSD tcp_output: "if (idle && tcp_now - tp->t_rcvtime >= tp->t_rxtcur)
//               tp->snd_cwnd = 2 * tp->t_maxseg" (§3); Windows restarts after about an RTO [I §1].
//   slow start / congestion avoidance — OpenBSD tcp_input (tcp_newreno / "open the congestion
//               window"): incr = maxseg; if (cwnd > ssthresh) incr = incr * incr / cwnd;
//               ns-3 TcpNewReno SlowStart/CongestionAvoidance give the same per-ACK growth.
//   NewReno   — RFC 6582: 3 duplicate ACKs -> ssthresh = max(flight/2, 2*mss), retransmit,
//               cwnd = ssthresh + 3*mss, inflate per dupack; partial ACK -> retransmit next
//               hole, deflate; full ACK -> cwnd = ssthresh.
//   timeout   — RFC 5681: ssthresh = max(flight/2, 2*mss), cwnd = 1 mss.
#pragma once

#include <cstdint>

namespace ackstall::sim {

class NewReno {
 public:
  NewReno(std::int64_t mss, std::int32_t initial_segments, std::int32_t after_idle_segments);

  std::int64_t cwnd() const noexcept { return cwnd_; }
  std::int64_t ssthresh() const noexcept { return ssthresh_; }
  bool in_recovery() const noexcept { return recovery_; }

  // New data ACKed (snd_una advanced by `acked` bytes to `snd_una`). Returns true when a partial
  // ACK in recovery asks for the next hole to be retransmitted.
  bool on_new_ack(std::int64_t acked, std::int64_t snd_una);
  // A duplicate ACK; returns true when it triggers fast retransmit (the third one).
  bool on_dup_ack(std::int64_t flight, std::int64_t snd_max);
  void on_timeout(std::int64_t flight);
  // Sender idle for >= RTO: restart window (0 segments = never).
  void on_idle_restart();
  std::int32_t dup_acks() const noexcept { return dupacks_; }

 private:
  std::int64_t mss_;
  std::int64_t cwnd_;
  std::int64_t ssthresh_ = std::int64_t{1} << 30;  // TCP_MAXWIN << TCP_MAX_WINSHIFT
  std::int64_t after_idle_;
  std::int32_t dupacks_ = 0;
  bool recovery_ = false;
  std::int64_t recover_ = 0;
};

}  // namespace ackstall::sim
