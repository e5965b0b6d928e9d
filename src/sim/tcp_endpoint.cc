#include "ackstall/sim/tcp_endpoint.h"

#include "ackstall/core/link_framing.h"

#include "ackstall/sim/nagle.h"
#include "ackstall/sim/receive_window.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ackstall::sim {

namespace {
constexpr std::int64_t kMaxWin = 65535;        // TCP_MAXWIN
constexpr int kMaxWinShift = 14;               // TCP_MAX_WINSHIFT
constexpr std::int64_t kTsOptLen = core::kTimestampOptionBytes;  // TCPOLEN_TSTAMP_APPA (§1, §3: MSS -= 12)

[[noreturn, maybe_unused]] void invariant_failed(const char* what) noexcept {
  std::fprintf(stderr, "ackstall::sim::TcpEndpoint invariant violated: %s\n", what);
  std::abort();
}
}  // namespace

// Debug builds check the invariants (tcp_endpoint.h) when every input has been handled.
struct TcpEndpoint::CheckOnExit {
  const TcpEndpoint& ep;
  ~CheckOnExit() { ep.debug_check(); }
};

void TcpEndpoint::debug_check() const noexcept {
#ifndef NDEBUG
  if (const char* what = invariant_violation()) invariant_failed(what);
#endif
}

bool TcpEndpoint::timer_armed(TimerKind k) const noexcept {
  switch (k) {
    case TimerKind::rexmt: return rexmt_armed_;
    case TimerKind::delack: return delack_armed_;
    case TimerKind::persist: return persist_armed_;
  }
  return false;
}

const char* TcpEndpoint::invariant_violation() const noexcept {
  // 1. In-order, exactly-once delivery: what was accepted is rcv_nxt past the SYN (and FIN).
  if (rcv_queue_ < 0 || rcv_queue_ > ctr_.bytes_received) return "1: unread bytes outside [0, bytes received]";
  if (rcv_nxt_ > 0 && ctr_.bytes_received != rcv_nxt_ - 1 - (fin_received_ ? 1 : 0))
    return "1: bytes received differ from rcv_nxt - 1 (- FIN)";
  // 2. Send sequence space and windows.
  if (snd_una_ > snd_nxt_ || snd_nxt_ > snd_max_) return "2: not snd_una <= snd_nxt <= snd_max";
  if (snd_max_ > data_end() + (fin_queued_ ? 1 : 0)) return "2: snd_max beyond the data end + FIN";
  if (snd_wnd_ < 0 || max_sndwnd_ < 0 || rcv_adv_ < 0 || window_to_advertise() < 0) return "2: negative window";
  // 3. Retransmission timer iff something is outstanding (a window probe: persist instead).
  const bool outstanding = snd_una_ < snd_max_;
  if (rexmt_armed_ && !outstanding) return "3: retransmission timer armed with nothing outstanding";
  if (outstanding && !rexmt_armed_ && !persist_armed_)
    return "3: data outstanding with neither the retransmission nor the persist timer armed";
  // 4. The delayed-ACK timer runs only while an ACK is owed (emit() checks the cancellation).
  if (delack_armed_ && !ack_->pending() && delack_since_.is_never()) return "4: delayed-ACK timer armed, no ACK owed";
  return nullptr;
}

TcpEndpoint::TcpEndpoint(const EndpointParams& p)
    : prof_(p.profile),
      own_mss_(p.profile.mss > 0 ? p.profile.mss : core::mss_for_mtu(p.link_mtu)),
      maxseg_(own_mss_),
      ts_offset_(p.ts_offset),
      sbuf_(p.profile.send_buffer),
      ack_(make_ack_policy(p.profile.ack, p.tick_phase)),
      cc_(own_mss_, p.profile.cwnd.initial_segments, p.profile.cwnd.after_idle_segments),
      rtt_(p.profile.rto_initial, p.profile.rto_min),
      rcvbuf_(p.profile.rcvbuf) {
  // BSD: request_r_scale = smallest shift with TCP_MAXWIN << shift >= sb_hiwat (tcp_usrreq).
  while (rcv_scale_ < kMaxWinShift && (kMaxWin << rcv_scale_) < rcvbuf_) ++rcv_scale_;
  // Linux tcp_select_initial_window (6.1 tcp_output.c): "Set initial window to a value enough for
  // senders starting with initial congestion window of TCP_DEFAULT_INIT_RCVWND" (10 segments);
  // rcv_ssthresh starts there (tcp_openreq_init_rwin / tcp_connect_init) and grows by
  // tcp_grow_window. The MSS is ours less the timestamp option (tcp_openreq_init_rwin).
  // Linux 5.4 on (commit a337531b942b, "tcp: up initial rmem to 128KB and SYN rwin to around
  // 64KB"): *rcv_wnd = min(space, U16_MAX), space rounded down to whole MSS
  // (profile.linux_initial_rwnd = 65535; the lab's SYN-ACK offers 65160 = 45 x 1448).
  if (prof_.receive_window == ReceiveWindowKind::linux) {
    const std::int64_t mss = own_mss_ - (prof_.ask_timestamps ? kTsOptLen : 0);
    if (prof_.linux_initial_rwnd > 0) {
      const std::int64_t space = std::min<std::int64_t>(rcvbuf_, prof_.linux_initial_rwnd);
      rcv_ssthresh_ = mss > 0 && space > mss ? space / mss * mss : space;
    } else {
      rcv_ssthresh_ = std::min<std::int64_t>(rcvbuf_, 10 * mss);
    }
  }
}

WindowInput TcpEndpoint::window_input() const noexcept {
  // Linux charges the receive buffer per skb (sk_rmem_alloc counts truesize, about the same for a
  // 952-byte tail as for a full segment), so a short unread segment takes as much window as a
  // full one: count unread bytes in whole segments (tcp_space, 6.1 include/net/tcp.h).
  std::int64_t unread = rcv_queue_;
  std::int64_t mss = maxseg_;
  if (prof_.receive_window == ReceiveWindowKind::linux && maxseg_ > 0) {
    unread = (rcv_queue_ + maxseg_ - 1) / maxseg_ * maxseg_;
    // __tcp_select_window rounds to icsk_ack.rcv_mss, the size of the segments seen so far, not
    // to our MSS: before any data tcp_initialize_rcv_mss's min(advmss, TCP_MSS_DEFAULT = 536).
    // (A Linux window behind another stack's delayed-ACK rule, a mix for tests: our MSS.)
    if (const std::int64_t rcv_mss = ack_->rcv_mss(); rcv_mss > 0) mss = std::min(rcv_mss, maxseg_);
  }
  return {.space = rcvbuf_ - unread,
          .rcvbuf = rcvbuf_,
          .maxseg = mss,
          .promised = std::max<std::int64_t>(0, rcv_adv_ - rcv_nxt_),
          .max_win = kMaxWin << rcv_scale_,
          .ssthresh = rcv_ssthresh_,
          .wscale = rcv_scale_,
          .last_wnd = rcv_wnd_last_};
}

void TcpEndpoint::arm(Actions& a, TimerKind k, Nanos at) {
  a.timers.push_back({k, at});
  const bool on = !at.is_never();
  switch (k) {
    case TimerKind::rexmt: rexmt_armed_ = on; break;
    case TimerKind::delack: delack_armed_ = on; break;
    case TimerKind::persist: persist_armed_ = on; break;
  }
}

void TcpEndpoint::set_maxseg(std::int64_t peer_mss) {
  // BSD tcp_mss: min(peer's offer, our interface MSS), minus the timestamp option if in use
  // (docs/STACKS.md §1/§3: 1460 -> 1448).
  std::int64_t m = std::min(peer_mss > 0 ? peer_mss : 536, own_mss_);
  if (ts_on_) m -= kTsOptLen;
  maxseg_ = m;
  // BSD rounds the socket buffers up to a multiple of the MSS (§3: 17520 / 17376).
  if (prof_.round_rcvbuf_to_mss) rcvbuf_ = (prof_.rcvbuf + maxseg_ - 1) / maxseg_ * maxseg_;
  cc_ = NewReno(maxseg_, prof_.cwnd.initial_segments, prof_.cwnd.after_idle_segments);
}

std::int64_t TcpEndpoint::window_to_advertise() const noexcept {
  return advertised_window(prof_.receive_window, window_input());
}

void TcpEndpoint::send_syn(Nanos now, Actions& a, bool with_ack) {
  Segment s;
  s.seq = 0;
  s.flags = tcp_flag::syn | (with_ack ? tcp_flag::ack : 0);
  s.ack = with_ack ? rcv_nxt_ : 0;
  s.wnd = static_cast<std::uint16_t>(std::min(rcvbuf_, kMaxWin));  // SYN windows are unscaled
  s.opts.mss = static_cast<std::uint16_t>(own_mss_);
  if (with_ack ? want_wscale_ : prof_.ask_window_scale) s.opts.wscale = static_cast<std::uint8_t>(rcv_scale_);
  if (with_ack ? ts_on_ : prof_.ask_timestamps) s.opts.timestamps = timestamps(now, with_ack ? ts_recent_ : 0);
  s.retransmit = snd_max_ > 0;
  snd_nxt_ = 1;
  snd_max_ = std::max<std::int64_t>(snd_max_, 1);
  if (!timing_ && !s.retransmit) {
    timing_ = true;
    rtt_seq_ = 0;
    rtt_start_ = now;
  }
  a.out.push_back(s);
  arm(a, TimerKind::rexmt, now + rtt_.rto());
}

core::TcpTimestamps TcpEndpoint::timestamps(Nanos now, std::uint32_t ecr) const noexcept {
  // A 1 ms timestamp clock from a random offset (RFC 7323 §5.4).
  return {ts_offset_ + static_cast<std::uint32_t>(now.count() / 1'000'000), ecr};
}

void TcpEndpoint::connect(Nanos now, Actions& a) {
  const CheckOnExit check{*this};
  state_ = State::syn_sent;
  send_syn(now, a, false);
}

void TcpEndpoint::listen() { state_ = State::listen; }

SendOutcome TcpEndpoint::send(Nanos now, std::int64_t len, bool nonblocking, Actions& a) {
  const CheckOnExit check{*this};
  SendOutcome o = sbuf_.send(len, nonblocking);
  if (o.accepted > 0 && state_ == State::established) output(now, a);
  return o;
}

void TcpEndpoint::push_nodelay(Nanos now, Actions& a) {
  const CheckOnExit check{*this};
  nodelay_ = true;
  if (state_ == State::established) output(now, a);
}

void TcpEndpoint::close(Nanos now, Actions& a) {
  const CheckOnExit check{*this};
  fin_queued_ = true;
  if (state_ == State::established) output(now, a);
}

std::int64_t TcpEndpoint::read(Nanos now, std::int64_t max, Actions& a) {
  const CheckOnExit check{*this};
  const std::int64_t n = std::min(max, rcv_queue_);
  if (n <= 0) return 0;
  rcv_queue_ -= n;
  // Linux tcp_cleanup_rbuf (the policy decides; BSD policies return nothing here).
  const AckDecision d = ack_->on_read(
      {.now = now, .copied = n, .unacked = rcv_nxt_ - rcv_wup_, .drained = rcv_queue_ == 0});
  bool send_now = d.ack_now;
  // Window update on read (BSD PRU_RCVD -> tcp_output; Linux tcp_cleanup_rbuf), §3 / §4.
  if (!send_now && prof_.window_update_on_read) {
    if (window_update_due(prof_.receive_window, window_input())) {
      send_now = true;
      mark_window_update_ = true;
    }
  }
  if (send_now && state_ == State::established) {
    ack_now_ = true;
    output(now, a);
  }
  mark_window_update_ = false;
  return n;
}

void TcpEndpoint::apply(const AckDecision& d, Actions& a, Nanos now) {
  if (d.ack_now) {
    ack_now_ = true;
    return;
  }
  if (!d.arm_at.is_never()) {
    if (delack_since_.is_never()) delack_since_ = now;
    arm(a, TimerKind::delack, d.arm_at);
  }
}

void TcpEndpoint::emit(Nanos now, Actions& a, std::int64_t len, bool fin, bool psh) {
  Segment s;
  s.seq = snd_nxt_;
  s.len = static_cast<std::int32_t>(len);
  s.flags = tcp_flag::ack | (psh ? tcp_flag::psh : 0) | (fin ? tcp_flag::fin : 0);
  s.ack = rcv_nxt_;
  const std::int64_t win = window_to_advertise();
  s.wnd = static_cast<std::uint16_t>(std::min<std::int64_t>(win >> rcv_scale_, kMaxWin));
  rcv_adv_ = std::max(rcv_adv_, rcv_nxt_ + (std::int64_t{s.wnd} << rcv_scale_));
  rcv_wnd_last_ = std::int64_t{s.wnd} << rcv_scale_;  // tcp_select_window: tp->rcv_wnd = new_win
  if (ts_on_) s.opts.timestamps = timestamps(now, ts_recent_);
  s.retransmit = snd_nxt_ < snd_max_;
  const bool probe = force_ && snd_wnd_ - (snd_nxt_ - snd_una_) <= 0;
  if (probe) {
    // Window probe (tcp_output with t_force and the persist timer running): the byte goes out
    // but snd_nxt does not advance and the retransmission timer stays off; snd_max covers the
    // byte so that an ACK of it is acceptable.
    snd_max_ = std::max(snd_max_, snd_nxt_ + len);
    a.out.push_back(s);
    return;
  }
  if (len > 0 || fin) {
    if (!timing_ && !s.retransmit) {  // BSD t_rtttime: time one segment at a time (Karn)
      timing_ = true;
      rtt_seq_ = snd_nxt_;
      rtt_start_ = now;
      rtt_una_ = snd_una_;
    }
    snd_nxt_ += len + (fin ? 1 : 0);
    if (fin) {
      fin_sent_ = true;
      fin_seq_ = snd_nxt_ - 1;
    }
    snd_max_ = std::max(snd_max_, snd_nxt_);
    if (!rexmt_armed_) arm(a, TimerKind::rexmt, now + rtt_.rto());
    if (persist_armed_ && !force_) arm(a, TimerKind::persist, Nanos::never());
    if (len > 0 && len < maxseg_) snd_sml_ = snd_nxt_;  // Linux tcp_minshall_update
    if (len > 0) {
      if (s.retransmit) ++ctr_.retransmits;
      else ++ctr_.data_segments;
      ack_->on_data_sent(now);
      if (!nagle_since_.is_never()) {
        a.stalls.push_back({StallKind::nagle_hold, nagle_since_, now});
        nagle_since_ = Nanos::never();
      }
    }
  } else {
    ++ctr_.pure_acks;
    s.window_update = mark_window_update_;
    s.delayed_ack = mark_delayed_;
    if (mark_window_update_) ++ctr_.window_updates;
  }
  // Every segment carries our ACK: a pending delayed ACK is satisfied (§3: any segment the
  // receiver sends cancels it; Linux tcp_event_ack_sent).
  const std::int64_t segs = maxseg_ > 0 ? (rcv_nxt_ - rcv_wup_ + maxseg_ - 1) / maxseg_ : 1;
  rcv_wup_ = rcv_nxt_;
  if (ack_->pending() || !delack_since_.is_never()) arm(a, TimerKind::delack, Nanos::never());
  delack_since_ = Nanos::never();
  ack_->on_ack_sent(segs);
#ifndef NDEBUG
  if (delack_armed_ || ack_->pending()) invariant_failed("4: an ACK left and a delayed ACK is still owed or armed");
#endif
  ack_now_ = false;
  a.out.push_back(s);
}

void TcpEndpoint::output(Nanos now, Actions& a) {
  if (state_ != State::established) return;
  const bool idle = snd_max_ == snd_una_;
  // After-idle restart (OpenBSD tcp_output: idle && tcp_now - t_rcvtime >= t_rxtcur).
  if (idle && data_end() > snd_nxt_ && now - last_rcv_ >= rtt_.rto()) cc_.on_idle_restart();
  for (int guard = 0; guard < 100000; ++guard) {
    const std::int64_t off = snd_nxt_ - snd_una_;
    const std::int64_t avail = std::max<std::int64_t>(0, data_end() - snd_nxt_);
    std::int64_t win = std::min(snd_wnd_, cc_.cwnd());
    if (force_ && win == 0) win = 1;  // persist probe (tcp_output: t_force with win == 0)
    std::int64_t len = std::min(avail, std::max<std::int64_t>(0, win - off));
    if (len > maxseg_) len = maxseg_;
    const bool empties = snd_nxt_ + len == data_end();
    bool go = false;
    bool nagle_held = false;
    if (len > 0) {
      if (len == maxseg_) {
        go = true;
      } else {
        if (empties) {
          // §3/§4: Nagle variant decides a short segment that empties the buffer.
          const NagleInput in{.idle = snd_max_ == snd_una_,
                              .short_unacked = snd_sml_ > snd_una_ && snd_sml_ <= snd_nxt_};
          if (nagle_allows_short(nodelay_ ? NagleKind::off : prof_.nagle, in)) go = true;
          else nagle_held = true;
        }
        if (!go && max_sndwnd_ > 0 && len >= max_sndwnd_ / 2) go = true;  // sender SWS (§3)
        if (!go && snd_nxt_ < snd_max_) go = true;                           // retransmission
        if (!go && force_) go = true;
      }
    }
    // FIN: set only when this segment empties the buffer; it forces the segment out
    // (tcp_output: "if (flags & TH_FIN && (!TF_SENTFIN || snd_nxt == snd_una)) goto send").
    const bool fin = fin_queued_ && !fin_sent_ && snd_nxt_ + len == data_end();
    if (fin && (prof_.fin_overrides_nagle || !nagle_held)) go = true;
    if (ack_now_) go = true;
    if (!go) {
      if (nagle_held && nagle_since_.is_never()) nagle_since_ = now;
      // Persist: data waiting and no timer to clock it (window closed or too small for the
      // sender's SWS rules): OpenBSD tcp_output "if (so->so_snd.sb_cc && !REXMT && !PERSIST)
      // tcp_setpersist(tp)".
      if (avail > 0 && !rexmt_armed_ && !persist_armed_) {
        if (persist_backoff_ == Nanos::zero()) persist_backoff_ = rtt_.rto();
        arm(a, TimerKind::persist, now + persist_backoff_);
      }
      return;
    }
    const bool psh = len > 0 && sbuf_.psh(snd_nxt_ - 1, snd_nxt_ - 1 + len);
    emit(now, a, len, fin, psh);
    if (force_) return;  // one probe only
    if (len == 0 && !fin) return;
  }
}

void TcpEndpoint::retransmit_una(Nanos now, Actions& a) {
  // RFC 5681/6582: resend one segment from snd_una, then carry on from where sending was.
  const std::int64_t save = snd_nxt_;
  snd_nxt_ = snd_una_;
  const std::int64_t len = std::min<std::int64_t>(maxseg_, data_end() - snd_nxt_);
  if (len > 0) emit(now, a, len, false, sbuf_.psh(snd_nxt_ - 1, snd_nxt_ - 1 + len));
  snd_nxt_ = std::max(save, snd_nxt_);
}

void TcpEndpoint::process_ack(Nanos now, const Segment& s, Actions& a) {
  if (!s.has(tcp_flag::ack)) return;
  const std::int64_t wnd = std::int64_t{s.wnd} << snd_scale_;
  if (s.ack > snd_una_ && s.ack <= snd_max_) {
    const std::int64_t acked = s.ack - snd_una_;
    if (timing_ && s.ack > rtt_seq_) {
      rtt_.sample(now - rtt_start_);
      timing_ = false;
      // SO_SNDBUF unset on Winsock: the ideal send backlog from this delivery-rate sample (the
      // bytes ACKed since the timed segment left, over the time it took; send_buffer.h).
      if (sbuf_.on_delivery_sample(s.ack - rtt_una_, now - rtt_start_, rtt_.srtt(), max_sndwnd_))
        a.writable = true;
    }
    const bool rexmit_hole = cc_.on_new_ack(acked, s.ack);
    snd_una_ = s.ack;
    if (snd_nxt_ < snd_una_) snd_nxt_ = snd_una_;
    persist_backoff_ = Nanos::zero();
    const std::int64_t data_acked = std::min(snd_una_ - 1, sbuf_.enqueued());
    if (data_acked > 0 && sbuf_.on_acked(data_acked)) a.writable = true;
    // BSD tcp_input: "if (th->th_ack == tp->snd_max) TCP_TIMER_DISARM(REXMT) else if no
    // persist, re-arm with the current RTO".
    if (snd_una_ == snd_max_) arm(a, TimerKind::rexmt, Nanos::never());
    else arm(a, TimerKind::rexmt, now + rtt_.rto());
    if (rexmit_hole && snd_una_ < snd_max_) retransmit_una(now, a);  // NewReno partial ACK
  } else if (s.ack == snd_una_ && s.len == 0 && !s.has(tcp_flag::syn) && !s.has(tcp_flag::fin) &&
             snd_max_ > snd_una_ && wnd == snd_wnd_) {
    // RFC 5681 duplicate ACK.
    const std::int64_t flight = snd_max_ - snd_una_;
    if (cc_.on_dup_ack(flight, snd_max_)) {  // fast retransmit
      timing_ = false;                          // Karn: no RTT sample across a retransmission
      retransmit_una(now, a);
    }
  }
  // Send window update (RFC 793 / tcp_input: SND.WL1, SND.WL2).
  if (s.seq > snd_wl1_ || (s.seq == snd_wl1_ && (s.ack > snd_wl2_ || (s.ack == snd_wl2_ && wnd > snd_wnd_)))) {
    snd_wnd_ = wnd;
    snd_wl1_ = s.seq;
    snd_wl2_ = s.ack;
    max_sndwnd_ = std::max(max_sndwnd_, snd_wnd_);
    if (snd_wnd_ > 0 && persist_armed_) {
      arm(a, TimerKind::persist, Nanos::never());
      persist_backoff_ = Nanos::zero();
      // Probe bytes beyond the old window were never ACKed: resend from snd_una.
      if (snd_nxt_ > snd_una_ && !rexmt_armed_) arm(a, TimerKind::rexmt, now + rtt_.rto());
    }
  }
}

void TcpEndpoint::on_segment(Nanos now, const Segment& s, Actions& a) {
  const CheckOnExit check{*this};
  last_rcv_ = now;
  switch (state_) {
    case State::closed:
      return;
    case State::listen: {
      if (!s.has(tcp_flag::syn) || s.has(tcp_flag::ack)) return;
      // Passive open: answer timestamps only if the peer asked (§1, §3); window scale only if
      // both sides do it (RFC 1323).
      ts_on_ = s.opts.timestamps && prof_.accept_timestamps;
      want_wscale_ = s.opts.wscale && prof_.ask_window_scale;
      if (want_wscale_) snd_scale_ = std::min<int>(*s.opts.wscale, kMaxWinShift);
      else rcv_scale_ = 0;
      if (ts_on_) ts_recent_ = s.opts.timestamps->val;
      rcv_nxt_ = 1;
      rcv_wup_ = 1;
      snd_wnd_ = s.wnd;
      snd_wl1_ = s.seq;
      snd_wl2_ = 0;
      set_maxseg(s.opts.mss.value_or(0));
      state_ = State::syn_rcvd;
      send_syn(now, a, true);
      return;
    }
    case State::syn_sent: {
      if (!s.has(tcp_flag::syn) || !s.has(tcp_flag::ack) || s.ack != 1) return;
      ts_on_ = prof_.ask_timestamps && s.opts.timestamps;
      const bool ws = prof_.ask_window_scale && s.opts.wscale;
      if (ws) snd_scale_ = std::min<int>(*s.opts.wscale, kMaxWinShift);
      else rcv_scale_ = 0;
      if (ts_on_) ts_recent_ = s.opts.timestamps->val;
      if (timing_) {
        rtt_.sample(now - rtt_start_);
        timing_ = false;
      }
      rcv_nxt_ = 1;
      rcv_wup_ = 1;
      snd_una_ = 1;
      snd_wnd_ = s.wnd;  // unscaled in SYN segments
      max_sndwnd_ = snd_wnd_;
      snd_wl1_ = s.seq;
      snd_wl2_ = s.ack;
      set_maxseg(s.opts.mss.value_or(0));
      arm(a, TimerKind::rexmt, Nanos::never());
      state_ = State::established;
      a.connected = true;
      ack_now_ = true;  // the third packet of the handshake
      output(now, a);
      return;
    }
    case State::syn_rcvd: {
      if (!s.has(tcp_flag::ack) || s.ack < 1) return;
      if (timing_) {
        rtt_.sample(now - rtt_start_);
        timing_ = false;
      }
      snd_una_ = 1;
      snd_nxt_ = std::max<std::int64_t>(snd_nxt_, 1);
      arm(a, TimerKind::rexmt, Nanos::never());
      state_ = State::established;
      a.connected = true;
      max_sndwnd_ = std::max(max_sndwnd_, std::int64_t{s.wnd} << snd_scale_);
      break;  // fall through to established processing of this ACK (it may carry data)
    }
    case State::established:
      break;
  }
  if (s.has(tcp_flag::syn)) {  // retransmitted SYN-ACK: our ACK was lost
    ack_now_ = true;
    output(now, a);
    return;
  }
  // RFC 1323 ts_recent: from the segment that covers the last ACK we sent.
  if (ts_on_ && s.opts.timestamps && s.seq <= rcv_wup_) ts_recent_ = s.opts.timestamps->val;
  process_ack(now, s, a);

  if (s.len > 0 || s.has(tcp_flag::fin)) {
    // A retransmission that overlaps bytes already received: keep only the new part (BSD
    // tcp_input, todrop; after an RTO the sender goes back to snd_una, §3).
    // A FIN right after bytes already received counts as new (its data was taken earlier).
    std::int64_t seq = s.seq, len = s.len;
    if (seq < rcv_nxt_ && (seq + len > rcv_nxt_ || (s.has(tcp_flag::fin) && seq + len == rcv_nxt_))) {
      len -= rcv_nxt_ - seq;
      seq = rcv_nxt_;
    }
    if (seq == rcv_nxt_ && !fin_received_) {
      accept_in_order(now, s, len, a);
    } else {
      // Out of order (kept for reassembly) or a duplicate: ACK at once (§3, §4).
      if (seq > rcv_nxt_ && !fin_received_)
        reass_.add(seq, seq + len, s.has(tcp_flag::fin), rcv_nxt_ + rcv_room());
      ack_now_ = true;
    }
  }
  output(now, a);
}

// The next expected bytes (len of them, from segment s): into the receive queue as far as the
// buffer allows, the delayed-ACK rule decides, then whatever the reassembly queue now continues.
void TcpEndpoint::accept_in_order(Nanos now, const Segment& s, std::int64_t len, Actions& a) {
  const bool gap = !reass_.empty();
  const std::int64_t take = std::min<std::int64_t>(len, rcv_room());
  if (take > 0) {
    rcv_nxt_ += take;
    rcv_queue_ += take;
    ctr_.bytes_received += take;
    a.readable = true;
    // Linux tcp_event_data_recv -> tcp_grow_window, then __tcp_ack_snd_check's window term.
    bool grew = false, window_ok = true;
    if (prof_.receive_window == ReceiveWindowKind::linux) {
      const std::int64_t before = rcv_ssthresh_;
      rcv_ssthresh_ = linux_grow_ssthresh(rcv_ssthresh_, rcvbuf_, window_input().space, maxseg_, take);
      grew = rcv_ssthresh_ > before;
      // AckPolicyConfig::ack_at_read: the window term fails with anything unread (the segment
      // just queued is), as in the lab's regime (config.h, docs/STACKS.md §4); no window to compute.
      window_ok = !prof_.ack.ack_at_read && linux_select_window(window_input()) >= rcv_wnd_last_;
    }
    const AckDecision d = ack_->on_segment({.now = now,
                                            .len = take,
                                            .psh = s.has(tcp_flag::psh),
                                            .unacked = rcv_nxt_ - rcv_wup_,
                                            .rcv_wnd = window_to_advertise(),
                                            .advmss = maxseg_,
                                            .rto = rtt_.rto(),
                                            .srtt = rtt_.srtt(),
                                            .window_ok = window_ok,
                                            .window_grew = grew});
    apply(d, a, now);
  }
  if (take < len) {
    ack_now_ = true;  // beyond the window (a persist probe into a full buffer): ACK now
    return;
  }
  bool fin = s.has(tcp_flag::fin);
  if (gap) {
    // The hole is (partly) filled: the queued bytes that now follow join the receive queue, and
    // the ACK goes at once (reassembly.h: RFC 5681 §4.2, BSD tcp_reass, Linux, ns-3).
    const std::int64_t end = reass_.take_contiguous(rcv_nxt_, rcv_nxt_ + rcv_room());
    if (end > rcv_nxt_) {
      const std::int64_t n = end - rcv_nxt_;
      rcv_nxt_ = end;
      rcv_queue_ += n;
      ctr_.bytes_received += n;
      a.readable = true;
    }
    if (reass_.fin_at(rcv_nxt_)) {
      reass_.clear_fin();
      fin = true;
    }
    ack_now_ = true;
  }
  if (fin) {
    rcv_nxt_ += 1;  // FIN: ACK at once (tcp_input, TCPS_ESTABLISHED -> CLOSE_WAIT)
    fin_received_ = true;
    ack_now_ = true;
    a.readable = true;
  }
}

void TcpEndpoint::on_timer(Nanos now, TimerKind k, Actions& a) {
  const CheckOnExit check{*this};
  switch (k) {
    case TimerKind::rexmt: {
      rexmt_armed_ = false;
      if (state_ == State::syn_sent || state_ == State::syn_rcvd) {
        rtt_.backoff();
        timing_ = false;
        send_syn(now, a, state_ == State::syn_rcvd);
        return;
      }
      if (snd_una_ == snd_max_) return;
      ++ctr_.rto_fires;  // stays 0 on a clean link (tests/sim/invariants_test.cc)
      rtt_.backoff();
      cc_.on_timeout(snd_max_ - snd_una_);
      timing_ = false;   // Karn
      snd_nxt_ = snd_una_;
      if (fin_sent_ && snd_una_ <= fin_seq_) fin_sent_ = false;
      output(now, a);
      if (!rexmt_armed_) arm(a, TimerKind::rexmt, now + rtt_.rto());
      return;
    }
    case TimerKind::delack: {
      delack_armed_ = false;
      if (!ack_->on_timer()) return;
      ++ctr_.delayed_acks;
      if (!delack_since_.is_never()) a.stalls.push_back({StallKind::delayed_ack, delack_since_, now});
      delack_since_ = Nanos::never();
      ack_now_ = true;
      mark_delayed_ = true;
      output(now, a);
      mark_delayed_ = false;
      return;
    }
    case TimerKind::persist: {
      persist_armed_ = false;
      if (data_end() <= snd_nxt_) return;
      force_ = true;
      output(now, a);
      force_ = false;
      // tcp_setpersist / tcp_probe_timer: the interval starts at the RTO and doubles up to 60 s.
      // An ACK that moved snd_una reset the backoff to zero while the timer ran (a probe's byte
      // accepted into a window still advertised as zero): start again from the RTO, never from
      // zero, or the probes would repeat at one instant forever.
      persist_backoff_ = persist_backoff_ == Nanos::zero() ? rtt_.rto() : min(persist_backoff_ * 2, Nanos::s(60));
      if (!persist_armed_) arm(a, TimerKind::persist, now + persist_backoff_);
      return;
    }
  }
}

}  // namespace ackstall::sim
