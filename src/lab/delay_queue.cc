#include "ackstall/lab/delay_queue.h"

namespace ackstall::lab {

bool DelayQueue::push(std::int64_t now_ns, std::span<const std::byte> frame) {
  if (bytes_ + frame.size() > limit_bytes_) {
    ++dropped_;
    return false;
  }
  // A clock that steps back never reorders the line: a frame is due no earlier than the last.
  std::int64_t due = now_ns + delay_ns_;
  if (!q_.empty() && due < q_.back().due_ns) due = q_.back().due_ns;
  q_.push_back({due, std::vector<std::byte>(frame.begin(), frame.end())});
  bytes_ += frame.size();
  return true;
}

std::optional<std::int64_t> DelayQueue::next_due() const {
  if (q_.empty()) return std::nullopt;
  return q_.front().due_ns;
}

}  // namespace ackstall::lab
