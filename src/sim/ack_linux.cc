#include "ackstall/sim/ack_linux.h"

#include <algorithm>

namespace ackstall::sim {

namespace {
constexpr std::int64_t kMssDefault = 536;   // TCP_MSS_DEFAULT
constexpr Nanos kDelackMin = Nanos::ms(40); // TCP_DELACK_MIN (HZ/25)
constexpr Nanos kHalfSecond = Nanos::ms(500);
}  // namespace

LinuxAckPolicy::LinuxAckPolicy(LinuxAckFlavor flavor, Nanos ato_min, Nanos ato_max,
                               std::int32_t max_quickacks, Nanos jiffy)
    : flavor_(flavor), ato_min_(ato_min), ato_max_(ato_max), max_quick_(max_quickacks), jiffy_(jiffy),
      pingpong_(flavor == LinuxAckFlavor::pingpong) {}

void LinuxAckPolicy::incr_quickack(std::int64_t rcv_wnd) {
  // tcp_incr_quickack: quickacks = rcv_wnd / (2 * rcv_mss), at least 2, at most TCP_MAX_QUICKACKS.
  std::int64_t q = rcv_mss_ > 0 ? rcv_wnd / (2 * rcv_mss_) : 2;
  q = std::clamp<std::int64_t>(q, 2, max_quick_);
  if (q > quick_) quick_ = static_cast<std::int32_t>(q);
}

AckDecision LinuxAckPolicy::on_segment(const SegmentArrival& a) {
  // tcp_initialize_rcv_mss: min(advmss, TCP_MSS_DEFAULT).
  if (rcv_mss_ == 0) rcv_mss_ = std::min<std::int64_t>(a.advmss, kMssDefault);
  // tcp_measure_rcv_mss.
  if (a.len >= rcv_mss_) {
    rcv_mss_ = std::min<std::int64_t>(a.len, a.advmss);
    if (flavor_ != LinuxAckFlavor::v2_6 && a.psh && a.len < a.advmss) {
      pushed2_ = pushed_;
      pushed_ = true;
    }
  } else {
    if (pushed_) pushed2_ = true;
    pushed_ = true;
  }
  if (flavor_ != LinuxAckFlavor::v2_6 && a.psh && a.len >= rcv_mss_) {
    // §7 [V lab]: current kernels ACK a full-sized PSH segment at drain time as they do a short
    // one: it is marked ICSK_ACK_PUSHED. A short PSH segment was marked above, once, as
    // tcp_measure_rcv_mss does (PUSHED2 only if PUSHED was already pending): a lone short tail
    // read in pingpong mode then waits for the timer, which the lab shows (VALIDATION.md §4:
    // every delayed ACK of an 8192-byte write covered the 952-byte tail alone).
    pushed_ = true;
  }
  // tcp_event_data_recv: ATO estimation.
  if (ato_ == Nanos::zero()) {
    incr_quickack(a.rcv_wnd);
    ato_ = ato_min_;
  } else {
    const Nanos m = a.now - lrcvtime_;
    if (m <= ato_min_ / 2) {
      ato_ = ato_ / 2 + ato_min_ / 2;
    } else if (m < ato_) {
      ato_ = min(ato_ / 2 + m, a.rto);
    } else if (m > a.rto) {
      incr_quickack(a.rcv_wnd);
    }
  }
  lrcvtime_ = a.now;
  // tcp_grow_window (Linux 6.1 tcp_input.c): "inet_csk(sk)->icsk_ack.quick |= 1" when
  // rcv_ssthresh grows.
  if (a.window_grew && quick_ == 0) quick_ = 1;
  // __tcp_ack_snd_check (6.1 tcp_input.c): "More than one full frame received... and right edge
  // of window advances far enough": (rcv_nxt - rcv_wup > rcv_mss && __tcp_select_window(sk) >=
  // tp->rcv_wnd) || tcp_in_quickack_mode(sk). The window term is false while the reader has left
  // data unread (the free space, hence the window, is below what was advertised): the ACK is then
  // left to tcp_cleanup_rbuf at the next read (on_read), or to the delayed-ACK timer.
  const bool quickack_mode = quick_ > 0 && !pingpong_;
  if ((a.unacked > rcv_mss_ && a.window_ok) || quickack_mode) return {.ack_now = true};
  return delayed(a.now, a.srtt);
}

AckDecision LinuxAckPolicy::delayed(Nanos now, Nanos srtt) {
  // tcp_send_delayed_ack.
  Nanos ato = ato_;
  if (ato > kDelackMin) {
    Nanos max_ato = kHalfSecond;
    if (pingpong_ || pushed_) max_ato = ato_max_;
    if (srtt > Nanos::zero()) {
      const Nanos rtt = max(srtt, kDelackMin);
      if (rtt < max_ato) max_ato = rtt;
    }
    ato = min(ato, max_ato);
  }
  Nanos timeout = now + ato;
  // sk_reset_timer(..., jiffies + ato): the timer wheel fires on a jiffy boundary.
  if (jiffy_ > Nanos::zero()) timeout = Nanos((timeout.count() + jiffy_.count() - 1) / jiffy_.count() * jiffy_.count());
  if (timer_) {
    // "If some ACK is already scheduled, use the earlier deadline; if it is due within ato/4,
    // send now."
    if (deadline_ <= now + ato / 4) return {.ack_now = true};
    if (timeout > deadline_) timeout = deadline_;
  }
  timer_ = true;
  deadline_ = timeout;
  return {.arm_at = timeout};
}

AckDecision LinuxAckPolicy::on_read(const AppRead& r) {
  AckDecision d;
  if (timer_) {
    // tcp_cleanup_rbuf.
    if (r.unacked > rcv_mss_ ||
        (r.copied > 0 && r.drained && (pushed2_ || (pushed_ && !pingpong_))))
      d.ack_now = true;
  }
  // linux_pingpong: the application sets TCP_QUICKACK=0 after each read (§7).
  if (flavor_ == LinuxAckFlavor::pingpong) pingpong_ = true;
  return d;
}

void LinuxAckPolicy::on_ack_sent(std::int64_t segments_acked) {
  // tcp_event_ack_sent -> tcp_dec_quickack_mode + inet_csk_clear_xmit_timer(ICSK_TIME_DACK).
  if (quick_ > 0) quick_ = static_cast<std::int32_t>(std::max<std::int64_t>(0, quick_ - segments_acked));
  timer_ = false;
  deadline_ = Nanos::never();
  pushed_ = pushed2_ = false;  // icsk_ack.pending cleared (inet_csk_clear_xmit_timer)
}

void LinuxAckPolicy::on_data_sent(Nanos now) {
  // tcp_event_data_sent: "If it is a reply for ato after last received packet, enter pingpong."
  if (ato_ > Nanos::zero() && now - lrcvtime_ < ato_) pingpong_ = true;
}

bool LinuxAckPolicy::on_timer() {
  if (!timer_) return false;
  // tcp_delack_timer_handler.
  if (!pingpong_) {
    ato_ = ato_ * 2;
    if (ato_ > ato_max_) ato_ = ato_max_;  // min(ato << 1, rto); rto >= 200 ms here
  } else {
    pingpong_ = false;  // "Delayed ACK missed: leave pingpong mode"
    ato_ = ato_min_;
  }
  return true;
}

}  // namespace ackstall::sim
