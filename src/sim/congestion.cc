#include "ackstall/sim/congestion.h"

#include <algorithm>

namespace ackstall::sim {

NewReno::NewReno(std::int64_t mss, std::int32_t initial_segments, std::int32_t after_idle_segments)
    : mss_(mss), after_idle_(after_idle_segments) {
  // RFC 3390 when the profile says 0 (OpenBSD 2008: min(4*mss, max(2*mss, 4380))).
  cwnd_ = initial_segments > 0 ? mss * initial_segments
                               : std::min(4 * mss, std::max<std::int64_t>(2 * mss, 4380));
}

bool NewReno::on_new_ack(std::int64_t acked, std::int64_t snd_una) {
  dupacks_ = 0;
  if (recovery_) {
    if (snd_una >= recover_) {  // full ACK: leave recovery, deflate (RFC 6582 3.2 step 3)
      recovery_ = false;
      cwnd_ = ssthresh_;
      return false;
    }
    // Partial ACK: deflate by the amount ACKed, add back one MSS, retransmit the next hole.
    cwnd_ = std::max(cwnd_ - acked + mss_, mss_);
    return true;
  }
  std::int64_t incr = mss_;
  if (cwnd_ > ssthresh_) incr = std::max<std::int64_t>(1, incr * incr / cwnd_);
  cwnd_ = std::min<std::int64_t>(cwnd_ + incr, std::int64_t{1} << 30);
  return false;
}

bool NewReno::on_dup_ack(std::int64_t flight, std::int64_t snd_max) {
  ++dupacks_;
  if (recovery_) {
    cwnd_ += mss_;  // inflate
    return false;
  }
  if (dupacks_ == 3) {
    ssthresh_ = std::max(flight / 2, 2 * mss_);
    cwnd_ = ssthresh_ + 3 * mss_;
    recovery_ = true;
    recover_ = snd_max;
    return true;
  }
  return false;
}

void NewReno::on_timeout(std::int64_t flight) {
  ssthresh_ = std::max(flight / 2, 2 * mss_);
  cwnd_ = mss_;
  recovery_ = false;
  dupacks_ = 0;
}

void NewReno::on_idle_restart() {
  if (after_idle_ > 0) cwnd_ = std::min(cwnd_, mss_ * after_idle_);
}

}  // namespace ackstall::sim
