#include "ackstall/sim/link.h"

#include <algorithm>

namespace ackstall::sim {

std::int64_t wire_bytes(const LinkConfig& l, std::int64_t ip_len) noexcept {
  return core::wire_bytes(l.framing(), ip_len);  // §5
}

Nanos tx_time(const LinkConfig& l, std::int64_t wire) noexcept {
  __extension__ typedef unsigned __int128 u128;
  const u128 bits_ns = static_cast<u128>(wire) * 8u * 1'000'000'000u;
  const auto rate = static_cast<u128>(l.rate_bps);
  return Nanos(static_cast<std::int64_t>((bits_ns + rate - 1) / rate));
}

double link_ceiling_mib_s(const LinkConfig& link, std::int32_t mss, std::int32_t tcp_options) {
  return core::goodput_ceiling_bytes_per_s(link.rate_bps, link.framing(), mss, tcp_options) / 1048576.0;
}

bool LinkDirection::enqueue(const Segment& s, bool& starts) {
  starts = false;
  if (queue_.size() >= static_cast<std::size_t>(limit_)) return false;  // drop-tail
  queue_.push_back(s);
  starts = queue_.size() == 1;
  return true;
}

bool LinkDirection::tx_done(Nanos deliver_at) {
  lag_ = Nanos::zero();
  flight_.push_back({queue_.front(), deliver_at});
  queue_.pop_front();
  return !queue_.empty();
}

Nanos LinkDirection::finish(Nanos start, Nanos tx, Nanos bank, Nanos late) noexcept {
  if (bank <= Nanos::zero()) return start + tx;  // a wire
  // sch_tbf (tbf_dequeue): toks = min(toks + elapsed, buffer); the packet goes when toks >= its
  // length in time, and toks -= length. Short of tokens, the qdisc watchdog fires when they
  // suffice (net/sched/sch_tbf.c tbf_dequeue -> qdisc_watchdog_schedule_ns; sch_api.c
  // qdisc_watchdog: an hrtimer that raises NET_TX via __netif_schedule; Linux 6.x), `late` after
  // that; the tokens of those `late` ns stay (up to the buffer).
  credit_ = min(bank, credit_ + (start - credit_at_));
  Nanos done = start;
  if (credit_ >= tx) {
    credit_ = credit_ - tx;
  } else {
    done = start + (tx - credit_) + late;
    credit_ = max(Nanos::zero(), min(bank, tx + late) - tx);  // a burst below one frame banks nothing
  }
  credit_at_ = done;
  return done;
}

Nanos LinkDirection::depart(Nanos start, Nanos tx, Nanos bank, Nanos prop, Rng& rng) noexcept {
  const Segment& s = queue_.front();
  Nanos late = Nanos::zero();
  if (!lateness_.none() && waits(start, tx, bank)) late = lateness_.draw(rng);
  // One draw per data frame, as bench/lab_link_jitter.py measures a trace write by write (the
  // first two of a write leave on banked credit: 0 there), so that each write takes its own.
  if (!data_lateness_.none() && s.len > 0) lag_ = data_lateness_.draw(rng);
  const Nanos done = finish(start, tx, bank, late);
  if (!data_lateness_.none()) {  // the lag delays the frame's arrival, frames staying in order
    const Nanos nic = max(done + prop + lag_, last_arrival_);
    lag_ = nic - (done + prop);
    last_arrival_ = nic;
  }
  return done;
}

InFlight LinkDirection::pop_arrival() {
  InFlight f = flight_.front();
  flight_.pop_front();
  return f;
}

}  // namespace ackstall::sim
