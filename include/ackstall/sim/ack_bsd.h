// ackstall/sim/ack_bsd.h — BSD delayed-ACK rules (docs/STACKS.md §3).
//
// OpenBSD/NetBSD tcp_input.c, in-order data with an empty reassembly queue (TCP_SETUP_ACK /
// the `tp->t_flags & TF_DELACK` test, 2005):
//     if (TF_DELACK already set || (tcp_ack_on_push && tiflags & TH_PUSH)) ACK now;
//     else { set TF_DELACK; TCP_SET_DELACK(tp) }   -- one-shot per-connection timer
// so every second in-order segment, of any size, is ACKed at once. The timer is armed once, not
// re-armed by later segments; tcp_delack_ticks = hz / PR_FASTHZ = 200 ms (openbsd).
// FreeBSD 6 (tcp_input.c DELAY_ACK: delay only if no delayed-ACK callout is active;
// tcp_delacktime = 100 ms; no ackonpush).
// bsd_tick: pre-2001 BSD (NetBSD 1996 tcp_fasttimo): TF_DELACK is flushed by a host-global
// 200 ms tick, i.e. at the next tick boundary after the segment — a uniform 0-200 ms delay.
// Any segment we send cancels the pending delayed ACK (tcp_output clears TF_DELACK).
#pragma once

#include "ackstall/sim/ack_policy.h"

namespace ackstall::sim {

class BsdAckPolicy final : public AckPolicy {
 public:
  // `tick` > 0 selects bsd_tick with boundaries at tick_phase + k * tick.
  BsdAckPolicy(Nanos delack, bool ack_on_push, Nanos tick = Nanos::zero(), Nanos tick_phase = Nanos::zero());
  AckDecision on_segment(const SegmentArrival& a) override;
  void on_ack_sent(std::int64_t segments_acked) override;
  bool on_timer() override;
  bool pending() const override { return delack_; }

 private:
  Nanos delack_time_;
  bool ack_on_push_;
  Nanos tick_;
  Nanos tick_phase_;
  bool delack_ = false;  // TF_DELACK
};

}  // namespace ackstall::sim
