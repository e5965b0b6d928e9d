#include "ackstall/sim/rtt.h"

namespace ackstall::sim {

void RttEstimator::sample(Nanos r) {
  if (!has_) {  // RFC 6298 2.2
    srtt_ = r;
    rttvar_ = r / 2;
    has_ = true;
  } else {      // RFC 6298 2.3, alpha 1/8, beta 1/4
    const Nanos err = srtt_ > r ? srtt_ - r : r - srtt_;
    rttvar_ = rttvar_ - rttvar_ / 4 + err / 4;
    srtt_ = srtt_ - srtt_ / 8 + r / 8;
  }
  rto_ = max(min_, srtt_ + rttvar_ * 4);
  if (rto_ > Nanos::s(64)) rto_ = Nanos::s(64);
}

void RttEstimator::backoff() {
  rto_ = rto_ * 2;
  if (rto_ > Nanos::s(64)) rto_ = Nanos::s(64);
}

}  // namespace ackstall::sim
