#include "ackstall/core/afd_quota.h"

#include <algorithm>

namespace ackstall::core {

void AfdQuota::charge(std::int64_t len) {
  if (len <= 0) return;
  sent_ += len;
  ends_.push_back(sent_);
}

std::size_t AfdQuota::acknowledge(std::int64_t acked) noexcept {
  acked = std::min(acked, sent_);
  if (acked <= acked_) return 0;
  acked_ = acked;
  std::size_t released = 0;
  while (!ends_.empty() && ends_.front() <= acked_) {
    released_end_ = ends_.front();
    ends_.pop_front();
    ++released;
  }
  return released;
}

bool AfdQuota::withheld_may_complete() const noexcept {
  const std::size_t n = ends_.size();
  if (n <= 2) return true;  // nothing, or one send, buffered before the withheld one
  const std::int64_t withheld_start = ends_[n - 2];
  return withheld_start - released_end_ < quota_;
}

bool AfdQuota::send_ends_in(std::int64_t begin, std::int64_t end) const noexcept {
  for (std::size_t i = 0; i < ends_.size(); ++i) {
    const std::int64_t e = ends_[i];
    if (e > end) break;
    if (e > begin) return true;
  }
  return false;
}

}  // namespace ackstall::core
