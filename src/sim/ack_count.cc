#include "ackstall/sim/ack_count.h"

namespace ackstall::sim {

CountAckPolicy::CountAckPolicy(std::int32_t every, Nanos timeout, bool ack_first_segment)
    : every_(every), timeout_(timeout), ack_first_(ack_first_segment) {}

AckDecision CountAckPolicy::on_segment(const SegmentArrival& a) {
  if (ack_first_ && !seen_data_) {
    seen_data_ = true;
    return {.ack_now = true};
  }
  seen_data_ = true;
  if (++count_ >= every_) return {.ack_now = true};  // ns-3: m_delAckCount >= m_delAckMaxCount
  if (!timer_) {                                     // ns-3: "else if (m_delAckEvent.IsExpired())"
    timer_ = true;
    return {.arm_at = a.now + timeout_};
  }
  return {};
}

void CountAckPolicy::on_ack_sent(std::int64_t) {
  count_ = 0;  // the ACK covers everything received
  timer_ = false;
}

bool CountAckPolicy::on_timer() {
  timer_ = false;
  return count_ > 0;
}

}  // namespace ackstall::sim
