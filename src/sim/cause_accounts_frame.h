// cause_accounts_frame.h (internal to src/sim) — CauseAccountant's per-frame path, inline: the
// accountant's own on_frame and take_until (cause_accounts.cc) and the simulator's direct feed
// (simulation.cc: CauseAccountant::on_wire, no WireFrame built and no virtual call) expand it in
// place. Each frame once paid a virtual call and a WireFrame of 80 bytes built field by field, more
// than the accounts' own rules cost (docs/BENCHMARKS.md "Issue 41: the simulator's own causes").
#pragma once

#include "ackstall/sim/cause_accounts.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace ackstall::sim {
namespace cause_detail {

constexpr std::size_t idx(core::LimitCause c) noexcept { return static_cast<std::size_t>(c); }

}  // namespace cause_detail

[[gnu::always_inline]] inline void CauseAccountant::on_wire(bool from_sender, std::int64_t stamp, std::int64_t reported, std::uint32_t seq,
                                                          std::uint32_t ack, std::uint32_t len, std::uint16_t window, std::uint8_t flags,
                                                          bool retransmit, std::optional<std::uint8_t> wscale) {
  // Each direction's stamps rise (a FIFO link, its frames handled in order), so two queues merged
  // by time keep the events in time order (a stamp below the one before it, not expected, is
  // taken as equal to it).
  std::int64_t& last = last_t_[from_sender ? 0 : 1];
  const std::int64_t at = std::max(stamp, last);
  last = at;
  // No later frame is stamped before `reported` (WireFrame), so the events up to it are in time
  // order now. A sender's frame stamped when it is reported (no host cost, no queue) with none
  // of its own held goes straight to the accounts: its predecessors are the receiver's events up
  // to its stamp (queued before it: earlier in report order).
  if (from_sender && at <= reported && from_sender_.empty()) {
    // take_until(at) with no sender's event held: the receiver's events up to its stamp.
    if (at >= due_) {
      while (!from_receiver_.empty() && from_receiver_.front().t <= at) {
        on_receiver(from_receiver_.front());  // adds nothing to the queues: the reference stays valid
        from_receiver_.pop_front();
      }
      due_ = from_receiver_.empty() ? std::numeric_limits<std::int64_t>::max() : from_receiver_.front().t;
    }
    // Taken at once, never queued: no report order to keep (only queued events compare by it).
    on_sender(Event{.t = at,
                    .order = 0,
                    .seq = seq,
                    .ack = ack,
                    .len = len,
                    .window = window,
                    .flags = flags,
                    .from_sender = true,
                    .retransmit = retransmit,
                    .wscale = wscale});
  } else {
    // Written in place, field by field: an Event built on the stack and copied in was read back
    // across its own narrow stores, a store-forwarding stall (docs/BENCHMARKS.md, "Issue 41: the
    // simulator's own causes").
    Event& e = (from_sender ? from_sender_ : from_receiver_).append_slot();  // every field written below
    e.t = at;
    e.order = order_++;
    e.seq = seq;
    e.ack = ack;
    e.len = len;
    e.window = window;
    e.flags = flags;
    e.from_sender = from_sender;
    e.retransmit = retransmit;
    e.wscale = wscale;
    due_ = std::min(due_, at);
  }
  if (reported >= due_) take_until(reported);
  // The waits that the marked stalls decide are judged a threshold after they end, when every
  // stall over them has been reported (each is reported when it ends, at the sender's or the
  // receiver's host).
  if (!pending_.empty()) judge_until(reported - hold_ns_);
}

inline std::int64_t CauseAccountant::unwrap(std::uint32_t seq, std::uint32_t iss) const noexcept {
  // Relative to the first data byte (ISS + 1), the 32-bit sequence space unwrapped around the
  // highest byte sent (RFC 9293 3.4: comparisons are modulo 2^32).
  const std::uint32_t rel = seq - iss - 1;
  const std::int64_t ref = data_max_;
  const auto d = static_cast<std::int32_t>(rel - static_cast<std::uint32_t>(ref));
  return ref + d;
}

inline void CauseAccountant::account(core::LimitCause c, std::int64_t until) {
  if (until <= acct_ns_) return;
  cause_ns_[cause_detail::idx(c)] += until - acct_ns_;
  acct_ns_ = until;
}

inline void CauseAccountant::flight(std::int64_t until) {
  if (until <= acct_ns_) return;
  flight_ns_ += until - acct_ns_;
  acct_ns_ = until;
}

inline void CauseAccountant::note_floor(std::int64_t ns) {
  if (ns >= 0 && (floor_ns_ < 0 || ns < floor_ns_)) {
    floor_ns_ = ns;
    update_lag();
  }
}

inline void CauseAccountant::commit_idle() {
  cause_ns_[cause_detail::idx(core::LimitCause::sender_app)] += idle_ns_;
  idle_ns_ = 0;
}

[[gnu::always_inline]] inline void CauseAccountant::on_sender(const Event& e) {
  const std::int64_t now = e.t;
  if ((e.flags & tcp_flag::syn) != 0) {
    sender_syn_ = true;
    iss_s_ = e.seq;
    sender_wscale_ = e.wscale;
    syn_ns_ = now;
    return;
  }
  if (!sender_syn_) return;
  // The handshake's round trip: the SYN to the ACK of the SYN/ACK (as the scanner measures it).
  if (handshake_rtt_ns_ < 0 && receiver_syn_ && (e.flags & tcp_flag::ack) != 0) {
    handshake_rtt_ns_ = now - syn_ns_;
    update_lag();
  }
  if (e.len == 0) return;
  const std::int64_t start = unwrap(e.seq, iss_s_);
  const std::int64_t end = start + e.len;
  const bool new_data = end > data_max_;
  const bool retransmission = e.retransmit || start < data_max_;
  if (started_) {
    if (have_window_ && window_raw_ == 0) {
      commit_idle();
      account(core::LimitCause::receiver_window, now);
    } else if (in_flight() == 0) {
      // Idle: the application wrote nothing. Counted once data follows.
      idle_ns_ += now - acct_ns_;
      acct_ns_ = std::max(acct_ns_, now);
      if (new_data && e.len >= max_seg_ && paced_after_previous(now - last_data_ns_)) {
        // A full segment one frame time after the one before: it queued behind it at the
        // bottleneck (a shaper's bucket), not an idle sender: the path's time (the scanner's rule).
        ++out_.idle_periods;
        cause_ns_[cause_detail::idx(core::LimitCause::network)] += idle_ns_;
        idle_ns_ = 0;
      } else if (new_data) {
        // The first round trip after the ACK that emptied the flight goes to the flight, as the
        // scanner gives it (a capture beside the receiver sees the ACK's way back in it): so the
        // line reads as `ackstall scan` of the run's capture does.
        ++out_.idle_periods;
        const std::int64_t rtt = std::max(std::max<std::int64_t>(floor_ns_, 0), handshake_rtt_ns_);
        // A sender idle in the middle of a write (its last segment without PSH) had data queued:
        // all of the wait is the flight's (the scanner's rule; PSH on a write's last segment).
        const std::int64_t clock =
            last_data_psh_ ? std::clamp<std::int64_t>(std::min(now - idle_since_, rtt), 0, idle_ns_) : idle_ns_;
        idle_ns_ -= clock;
        flight_ns_ += clock;
        commit_idle();
      }
    } else if (retransmission || in_recovery_) {
      account(core::LimitCause::loss, now);
    } else if (now - acct_ns_ - pause_lag_ns_ < threshold_ns_) {
      flight(now);
    } else {
      // A pause with data in flight and window to spare: what the simulator marked over it (Nagle
      // holding a short segment, the application blocked by its quota), else the application.
      defer({.t = now, .from = acct_ns_, .to = now, .stall = false});
    }
  }
  if (retransmission && !in_recovery_ && any_data_) {
    // A recovery lasts until everything sent before it is ACKed (RFC 6675 RecoveryPoint).
    in_recovery_ = recovered_ = true;
    recover_ = data_max_;
  }
  if (new_data) {
    if (!any_data_) {
      any_data_ = started_ = true;
      acct_ns_ = now;
      snd_una_ = start;
    }
    last_data_psh_ = (e.flags & tcp_flag::psh) != 0;
    note_edge_data(now, end);
    if (e.len >= max_seg_ && last_data_full_ && now > last_data_ns_) note_spacing(now - last_data_ns_);
    last_data_full_ = e.len >= max_seg_;
    last_data_ns_ = now;
    data_max_ = end;
    sent_.push_back({end, now});
    max_seg_ = std::max<std::int64_t>(max_seg_, e.len);
  }
  last_tx_ns_ = now;
}

[[gnu::always_inline]] inline void CauseAccountant::on_receiver(const Event& e) {
  const std::int64_t now = e.t;
  if ((e.flags & tcp_flag::syn) != 0) {
    if (sender_syn_ && !receiver_syn_) note_floor(now - syn_ns_);  // the handshake's SYN to SYN/ACK
    receiver_syn_ = true;
    receiver_wscale_ = e.wscale;
  }
  if ((e.flags & tcp_flag::ack) == 0 || !sender_syn_) return;
  // The window field is scaled on every segment but a SYN when both SYNs offered scaling (RFC 7323 2.2).
  const int shift = (e.flags & tcp_flag::syn) == 0 && sender_wscale_ && receiver_wscale_ ? *receiver_wscale_ : 0;
  const std::int64_t new_window = static_cast<std::int64_t>(e.window) << shift;
  const std::int64_t old_window = window_raw_;
  const bool was_zero = have_window_ && old_window == 0;
  const std::int64_t a = std::min(unwrap(e.ack, iss_s_), data_max_);  // a FIN's ACK: one past the data
  const bool advanced = any_data_ && a > snd_una_;
  const bool opened = have_window_ && new_window > old_window;
  if (started_ && (advanced || opened)) {
    const std::int64_t flight_before = in_flight();
    std::int64_t newest = std::numeric_limits<std::int64_t>::min();
    bool acked_segment = false;
    while (!sent_.empty() && sent_.front().end <= a) {
      newest = std::max(newest, sent_.front().t);
      acked_segment = true;
      sent_.pop_front();
    }
    if (advanced && acked_segment && !in_recovery_) note_floor(now - newest);
    const std::int64_t floor = std::max<std::int64_t>(floor_ns_, 0);
    if (flight_before == 0 && !was_zero) {
      idle_ns_ += now - acct_ns_;
      acct_ns_ = std::max(acct_ns_, now);
    } else if (was_zero || !advanced) {
      commit_idle();
      account(core::LimitCause::receiver_window, now);  // a zero window, or an update that only opened it
    } else if (in_recovery_) {
      account(core::LimitCause::loss, now);
    } else {
      const bool window_full = snd_una_ + old_window - data_max_ < max_seg_;
      if (now - last_tx_ns_ - floor >= threshold_ns_) {
        // A stall: the path's floor is the flight's, the rest the marked stall's.
        ++out_.stalls;
        flight(last_tx_ns_ + floor);
        // Else a late ACK of several segments: a queue, a busy host (network; judge_until).
        defer({.t = now, .from = last_tx_ns_, .to = now, .stall = true, .window_full = window_full});
      } else if (window_full) {
        account(core::LimitCause::receiver_window, now);
      } else {
        flight(now);
        ++flight_waits_;
        max_flight_at_wait_ = std::max(max_flight_at_wait_, flight_before);
      }
    }
  }
  if (advanced) {
    snd_una_ = a;
    if (in_flight() == 0) idle_since_ = now;
    out_.bytes_acked = a;
    if (in_recovery_ && a >= recover_) in_recovery_ = false;
  }
  if ((e.flags & tcp_flag::syn) == 0 && any_data_) {
    // snd_una_ >= a here (an ACK that advanced it set it to a): the edge is snd_una_ + window.
    edges_[edges_next_++ % edges_.size()] = {now, snd_una_ + new_window};
    ack_since_data_ = true;
  }
  window_raw_ = new_window;
  have_window_ = true;
  if ((e.flags & tcp_flag::syn) == 0) max_window_ = std::max(max_window_, new_window);
}

inline bool CauseAccountant::paced_after_previous(std::int64_t since_last_data) const {
  // The median of the last (up to) 8 full-size spacings, once there are 2; one as long as a stall
  // is an application's own pace, not a frame time.
  const std::optional<std::int64_t> mid = recent_.median();
  return mid && *mid < threshold_ns_ && since_last_data <= *mid + *mid / 4;
}

// Spacing buckets: 128 a power of two (the seven bits below the leading one: within 0.4 %, as
// the scanner's median of the spacings themselves), from 256 ns (a 1500-byte frame at 47 Gbit/s) up.
inline std::size_t CauseAccountant::spacing_bucket(std::int64_t ns) noexcept {
  const auto v = static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 256));
  const auto o = static_cast<std::size_t>(std::bit_width(v) - 1);  // >= 8
  return (o - 8) * 128 + static_cast<std::size_t>((v >> (o - 7)) & 127);
}

[[gnu::always_inline]] inline void CauseAccountant::note_spacing(std::int64_t ns) {
  recent_.add(ns);
  // Back-to-back segments leave a frame time apart, the same spacing again and again: its bucket
  // is kept, not found anew (the same counts, fewer instructions per segment).
  if (ns != last_spacing_ns_) {
    last_spacing_ns_ = ns;
    last_bucket_ = std::min(spacing_bucket(ns), spacing_hist_.size() - 1);
  }
  ++spacing_hist_[last_bucket_];
}

[[gnu::always_inline]] inline void CauseAccountant::note_edge_data(std::int64_t now, std::int64_t data_end) {
  // A burst of new data (the segments after an ACK) reaches the window's edge when a segment
  // leaves less than a full one of the window that the latest ACK offered (RFC 9293 3.8.6; the
  // scanner's window_edge.h, on the same frames).
  if (ack_since_data_) {
    if (in_burst_) {
      ++bursts_;
      if (at_edge_) ++edge_bursts_;
    }
    in_burst_ = at_edge_ = false;
    ack_since_data_ = false;
  }
  const std::int64_t cutoff = now - lag_ns_;
  const std::size_t n = std::min(edges_next_, edges_.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Edge& a = edges_[(edges_next_ - 1 - i) % edges_.size()];
    if (a.t > cutoff) continue;
    in_burst_ = true;
    if (data_end + max_seg_ > a.edge) at_edge_ = true;
    return;
  }
}

}  // namespace ackstall::sim
