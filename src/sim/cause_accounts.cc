#include "ackstall/sim/cause_accounts.h"

#include "cause_accounts_frame.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace ackstall::sim {
namespace {

using cause_detail::idx;
using core::LimitCause;

// Overlapping marked stalls: the cause that the wait counts toward, best first (the header's
// priority: a quota wait holds the delayed ACK that ends it, so the timer is the cause).
constexpr int rank_of(LimitCause c) noexcept {
  switch (c) {
    case LimitCause::delayed_ack: return 0;
    case LimitCause::send_buffer: return 2;
    default: return 3;
  }
}

}  // namespace

CauseAccountant::CauseAccountant(core::StallThreshold stall_threshold)
    : threshold_ns_(stall_threshold.count()), hold_ns_(std::max<std::int64_t>(threshold_ns_, 1'000'000)) {}

void CauseAccountant::on_stall(const StallMarker& m) {
  const std::int64_t d = (m.end - m.begin).count();
  if (d > threshold_ns_) {
    prune_stalls(settled());
    stalls_.push_back(m);
  }
  if (m.kind == StallKind::quota_wait) quota_ns_ += d;
}


void CauseAccountant::on_frame(const WireFrame& f) {
  if (f.dropped) return;  // never on the wire: the sender's host does not see it either
  const bool from_sender = f.dir == Direction::sender_to_receiver;
  // The sender's frames at their first bit out, the receiver's at their last bit in (the header).
  on_wire(from_sender, (from_sender ? f.time : f.arrival).count(), f.reported.count(), f.seq, f.ack, f.payload_len,
          f.window, f.flags, f.retransmit, f.options.wscale);
}

void CauseAccountant::take_until(std::int64_t upto) {
  for (;;) {
    // The earlier of the two queues' fronts (by time, then report order).
    const Event* s = from_sender_.empty() ? nullptr : &from_sender_.front();
    const Event* r = from_receiver_.empty() ? nullptr : &from_receiver_.front();
    const bool sender = s != nullptr && (r == nullptr || *r > *s);
    const Event* e = sender ? s : r;
    if (e == nullptr || e->t > upto) {
      due_ = e != nullptr ? e->t : std::numeric_limits<std::int64_t>::max();
      return;
    }
    // Neither handler adds to the queues: the reference stays valid until the pop.
    if (sender) {
      on_sender(*e);
      from_sender_.pop_front();
    } else {
      on_receiver(*e);
      from_receiver_.pop_front();
    }
  }
}

void CauseAccountant::defer(const Judgement& j) {
  if (j.to > acct_ns_) {
    pending_.push_back(j);
    pending_.back().amount = j.to - acct_ns_;
    acct_ns_ = j.to;
  }
}

void CauseAccountant::judge_until(std::int64_t upto) {
  while (!pending_.empty() && pending_.front().t <= upto) {
    const Judgement j = pending_.front();
    pending_.pop_front();
    prune_stalls(std::min(j.from, settled()));
    LimitCause c = j.stall ? LimitCause::network : LimitCause::sender_app;
    const bool marked = marked_cause(j.from, j.to, c);
    // A stall with the window full is the receiver's, unless a delayed-ACK timer ran over it.
    if (j.stall && j.window_full && (!marked || c != LimitCause::delayed_ack)) c = LimitCause::receiver_window;
    cause_ns_[idx(c)] += j.amount;
  }
}

std::int64_t CauseAccountant::settled() const noexcept {
  // No wait still to be judged begins before this: the accounts' cursor and the last data sent
  // only rise, and a pending wait begins at one of them.
  std::int64_t t = std::min(acct_ns_, last_tx_ns_);
  for (std::size_t i = 0; i < pending_.size(); ++i) t = std::min(t, pending_[i].from);
  return t;
}

void CauseAccountant::prune_stalls(std::int64_t behind) {
  // Marked stalls that end before every wait still to be judged are done with.
  while (!stalls_.empty() && stalls_.front().end.count() < behind) stalls_.pop_front();
}


bool CauseAccountant::marked_cause(std::int64_t from, std::int64_t to, LimitCause& cause) const {
  bool found = false;
  for (const StallMarker& m : stalls_) {
    if (m.begin.count() >= to || m.end.count() <= from) continue;
    const LimitCause c = core::cause_of(m.kind);  // core/stall_kind.h's table
    if (!found || rank_of(c) < rank_of(cause)) cause = c;
    found = true;
  }
  return found;
}










std::int64_t CauseAccountant::median_spacing() const {
  std::uint64_t spacings = 0, seen = 0;
  for (std::uint32_t n : spacing_hist_) spacings += n;
  for (std::size_t b = 0; b < spacing_hist_.size() && spacings > 0; ++b) {
    seen += spacing_hist_[b];
    if (2 * seen >= spacings) {  // the bucket's middle
      const std::size_t o = b / 128 + 8, sub = b % 128;
      return static_cast<std::int64_t>((256 + 2 * sub + 1) << (o - 8));
    }
  }
  return 0;
}

void CauseAccountant::update_lag() noexcept {
  // The scanner's: the ACK the sender answers left the capture point this long before its data
  // (three quarters of the handshake's round trip less the floor). Kept, not computed per frame.
  lag_ns_ = handshake_rtt_ns_ < 0 ? 0
                                  : std::max<std::int64_t>(handshake_rtt_ns_ - std::max<std::int64_t>(floor_ns_, 0), 0) * 3 / 4;
  pause_lag_ns_ = 4 * lag_ns_ / 3;
}


CauseAccounts CauseAccountant::finish() {
  take_until(std::numeric_limits<std::int64_t>::max());
  judge_until(std::numeric_limits<std::int64_t>::max());
  // The flight's limit (the header's rule): the path when it was full, else the send buffer when
  // the application sat blocked by it for a quarter of the time or more, else the congestion window.
  const std::int64_t busy = flight_ns_ + cause_ns_[idx(LimitCause::network)];
  const double goodput = busy > 0 ? static_cast<double>(out_.bytes_acked) * 1e9 / static_cast<double>(busy) : 0;
  const std::int64_t spacing = median_spacing();
  const double line = spacing > 0 ? static_cast<double>(max_seg_) * 1e9 / static_cast<double>(spacing) : 0;
  const bool path_full = line > 0 && goodput >= 0.9 * line && spacing < threshold_ns_;
  // Most bursts (two thirds, over 8 or more) reached the window's edge, on a path not full (or
  // one whose segments leave a round trip apart): the receiver's window.
  const std::uint64_t bursts = bursts_ + (in_burst_ ? 1 : 0), edge = edge_bursts_ + (in_burst_ && at_edge_ ? 1 : 0);
  const bool edge_bound = bursts >= 8 && 3 * edge >= 2 * bursts &&
                          !(path_full && 2 * spacing < std::max<std::int64_t>(handshake_rtt_ns_, 0));
  // A buffer holds the flight below the receiver's window: at most half of it at the prompt waits.
  const bool below_window = flight_waits_ >= 4 && max_window_ > 0 && 2 * max_flight_at_wait_ <= max_window_;
  const LimitCause c = edge_bound ? LimitCause::receiver_window
                       : !path_full && below_window && !recovered_ && 4 * quota_ns_ >= flight_ns_ ? LimitCause::send_buffer
                                                                                                   : LimitCause::network;
  cause_ns_[idx(c)] += flight_ns_;
  flight_ns_ = 0;
  out_.cause_ns = cause_ns_;
  out_.duration_ns = 0;
  for (std::int64_t t : cause_ns_) out_.duration_ns += t;
  out_.rtt_floor_ns = std::max<std::int64_t>(floor_ns_, 0);
  return out_;
}

}  // namespace ackstall::sim
