// ackstall/sim/ack_linux.h — Linux delayed ACK (docs/STACKS.md §4, §7).
//
// Modelled from net/ipv4/tcp_input.c and tcp_output.c:
//   * tcp_event_data_recv: first data -> tcp_incr_quickack + ato = TCP_ATO_MIN; later the ATO
//     adapts to the inter-arrival gap m: m <= ATO_MIN/2 -> ato = ato/2 + ATO_MIN/2; m < ato ->
//     ato = min(ato/2 + m, rto); m > rto -> tcp_incr_quickack (idle: quickack again).
//   * tcp_incr_quickack: quick = min(max(rcv_wnd / (2 * rcv_mss), 2), TCP_MAX_QUICKACKS).
//   * tcp_measure_rcv_mss: rcv_mss starts at min(advmss, 536) and follows full-sized segments;
//     a shorter segment sets ICSK_ACK_PUSHED (and PUSHED2 if PUSHED was already set). `linux`
//     (current) also marks a PSH segment, which is what the lab saw (§7: "current kernels ACK a
//     full-sized PSH segment ... as soon as the application drains the queue").
//   * __tcp_ack_snd_check (6.1): ACK now if more than one rcv_mss is un-ACKed AND the window
//     __tcp_select_window would offer is >= the advertised tp->rcv_wnd (SegmentArrival::window_ok,
//     computed by the endpoint from receive_window.h), or in quickack mode (quick > 0 and not
//     pingpong); else tcp_send_delayed_ack. tcp_grow_window's "icsk_ack.quick |= 1" when
//     rcv_ssthresh grows (window_grew) makes that segment a quickack unless in pingpong.
//   * tcp_send_delayed_ack: ato capped by max_ato = (pingpong || PUSHED) ? TCP_DELACK_MAX : HZ/2,
//     and by max(srtt, TCP_DELACK_MIN); if a timer is already due within ato/4, ACK now, else
//     keep the earlier deadline.
//   * tcp_cleanup_rbuf (read): with an ACK scheduled, ACK if more than one rcv_mss is un-ACKed,
//     or the read copied data and drained the queue and (PUSHED2, or PUSHED and not pingpong).
//   * tcp_delack_timer_handler: not pingpong -> ato = min(2 * ato, rto); pingpong -> leave
//     pingpong, ato = ATO_MIN. Then ACK.
//   * tcp_event_data_sent: sending data within ato of the last receive enters pingpong.
//   * linux_pingpong: the application re-sets TCP_QUICKACK=0 after every read, which re-enters
//     pingpong (do_tcp_setsockopt -> inet_csk_enter_pingpong_mode), as in the §7 lab.
// Not modelled: SACK compression, GRO, skb truesize (the window is computed from payload bytes).
#pragma once

#include "ackstall/sim/ack_policy.h"

namespace ackstall::sim {

enum class LinuxAckFlavor : std::uint8_t { v2_6, current, pingpong };

class LinuxAckPolicy final : public AckPolicy {
 public:
  LinuxAckPolicy(LinuxAckFlavor flavor, Nanos ato_min, Nanos ato_max, std::int32_t max_quickacks,
                 Nanos jiffy = Nanos::zero());
  AckDecision on_segment(const SegmentArrival& a) override;
  AckDecision on_read(const AppRead& r) override;
  void on_ack_sent(std::int64_t segments_acked) override;
  void on_data_sent(Nanos now) override;
  bool on_timer() override;
  bool pending() const override { return timer_; }

  bool pingpong() const noexcept { return pingpong_; }
  // Before the first data segment: tcp_initialize_rcv_mss's TCP_MSS_DEFAULT (536; the caller caps
  // it at its advmss).
  std::int64_t rcv_mss() const noexcept override { return rcv_mss_ > 0 ? rcv_mss_ : 536; }
  Nanos ato() const noexcept { return ato_; }
  std::int32_t quick() const noexcept { return quick_; }

 private:
  void incr_quickack(std::int64_t rcv_wnd);
  AckDecision delayed(Nanos now, Nanos srtt);

  LinuxAckFlavor flavor_;
  Nanos ato_min_, ato_max_;
  std::int32_t max_quick_;
  Nanos jiffy_;
  std::int32_t quick_ = 0;
  bool pingpong_ = false;
  Nanos ato_ = Nanos::zero();
  Nanos lrcvtime_ = Nanos::zero();
  std::int64_t rcv_mss_ = 0;
  bool pushed_ = false, pushed2_ = false;
  bool timer_ = false;
  Nanos deadline_ = Nanos::never();
};

}  // namespace ackstall::sim
