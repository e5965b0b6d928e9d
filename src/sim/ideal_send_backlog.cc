#include "ackstall/sim/ideal_send_backlog.h"

#include <algorithm>
#include <cmath>

namespace ackstall::sim {

std::int64_t IdealSendBacklog::clamp(std::int64_t v) const noexcept {
  // Never below the initial quota [I], never above 16 MB (Learn, SIO_IDEAL_SEND_BACKLOG_QUERY).
  return std::min(kMax, std::max(v, std::min(initial_, kMax)));
}

double IdealSendBacklog::max_rate() const noexcept {
  const auto n = static_cast<std::size_t>(std::min<std::int64_t>(count_, kRateWindow));
  double best = 0;
  for (std::size_t i = 0; i < n; ++i) best = std::max(best, rates_[i]);
  return best;
}

std::int64_t IdealSendBacklog::sample(std::int64_t delivered, Nanos interval, Nanos srtt,
                                      std::int64_t peer_window) noexcept {
  if (delivered <= 0 || interval <= Nanos::zero()) return isb_;
  // Delivery-rate sample: delivered / interval (draft-cheng-iccrg-delivery-rate-estimation) [I].
  rates_[static_cast<std::size_t>(count_ % static_cast<std::int64_t>(kRateWindow))] =
      static_cast<double>(delivered) / interval.seconds();
  ++count_;
  // BDP = windowed max rate x smoothed RTT; the receiver's window bounds it (Learn: the ISB is a
  // function of the BDP and the receiver's advertised window) [I how].
  double bdp = max_rate() * srtt.seconds();
  if (peer_window > 0) bdp = std::min(bdp, static_cast<double>(peer_window));
  const double want = std::min(static_cast<double>(kMax), static_cast<double>(kGain) * bdp);
  isb_ = clamp(static_cast<std::int64_t>(std::ceil(want)));
  return isb_;
}

}  // namespace ackstall::sim
