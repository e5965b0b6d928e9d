// ackstall/sim/rtt.h — retransmission timeout (RFC 6298 with Karn's rule).
//
// srtt/rttvar from one timed segment at a time (BSD t_rtttime; Karn: no sample from a
// retransmitted segment); RTO = max(rto_min, srtt + 4 * rttvar), doubled per timeout up to 64 s
// (TCPTV_REXMTMAX). Exact nanosecond samples: BSD's 500 ms slow-tick quantisation is replaced by
// the profile's rto_min (OpenBSD TCPTV_MIN = 1 s, Windows 300 ms [I]).
#pragma once

#include "ackstall/sim/time.h"

namespace ackstall::sim {

class RttEstimator {
 public:
  RttEstimator(Nanos initial, Nanos min_rto) : rto_(initial), min_(min_rto) {}
  void sample(Nanos rtt);
  void backoff();
  Nanos rto() const noexcept { return rto_; }
  Nanos srtt() const noexcept { return srtt_; }
  bool has_sample() const noexcept { return has_; }

 private:
  Nanos srtt_ = Nanos::zero(), rttvar_ = Nanos::zero();
  Nanos rto_;
  Nanos min_;
  bool has_ = false;
};

}  // namespace ackstall::sim
