#include "ackstall/sim/ack_bsd.h"

namespace ackstall::sim {

BsdAckPolicy::BsdAckPolicy(Nanos delack, bool ack_on_push, Nanos tick, Nanos tick_phase)
    : delack_time_(delack), ack_on_push_(ack_on_push), tick_(tick), tick_phase_(tick_phase) {}

AckDecision BsdAckPolicy::on_segment(const SegmentArrival& a) {
  // OpenBSD tcp_input.c: "if (tp->t_flags & TF_DELACK || (tcp_ack_on_push && tiflags & TH_PUSH))
  //   tp->t_flags |= TF_ACKNOW; else TCP_SET_DELACK(tp);"
  if (delack_ || (ack_on_push_ && a.psh)) return {.ack_now = true};
  delack_ = true;
  if (tick_ > Nanos::zero()) {
    // Global tick (NetBSD 1996 tcp_fasttimo via pffasttimo every 200 ms): next boundary > now.
    const Nanos since = a.now - tick_phase_;
    const std::int64_t k = since < Nanos::zero() ? 0 : since / tick_ + 1;
    return {.arm_at = tick_phase_ + tick_ * k};
  }
  // tcp_var.h TCP_SET_DELACK: timeout_add(&tp->t_delack_to, tcp_delack_ticks) — one shot.
  return {.arm_at = a.now + delack_time_};
}

void BsdAckPolicy::on_ack_sent(std::int64_t) {
  delack_ = false;  // tcp_output: TCP_CLEAR_DELACK(tp)
}

bool BsdAckPolicy::on_timer() {
  // tcp_delack_timeout: if TF_DELACK, clear it, set TF_ACKNOW and tcp_output.
  if (!delack_) return false;
  return true;
}

}  // namespace ackstall::sim
