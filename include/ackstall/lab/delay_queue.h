// ackstall lab: the delay line's queue (sans-IO): frames leave in arrival order exactly `delay`
// after they arrived, as on a long cable or a path with a fixed propagation delay (the wire is
// FIFO per direction, RFC 9293 3.10.7 copes with reordering but a constant delay has none).
// Bounded in bytes: a frame that would take the queue past its limit is dropped and counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

namespace ackstall::lab {

class DelayQueue {
 public:
  DelayQueue(std::int64_t delay_ns, std::size_t limit_bytes) : delay_ns_(delay_ns), limit_bytes_(limit_bytes) {}

  // A frame that arrived at now_ns (any monotonic clock). False if it was dropped (queue full).
  bool push(std::int64_t now_ns, std::span<const std::byte> frame);
  // When the oldest frame is due; nullopt when empty.
  std::optional<std::int64_t> next_due() const;
  // Hands every frame due at now_ns to `out`, oldest first.
  template <class Out>
  void release(std::int64_t now_ns, Out&& out) {
    while (!q_.empty() && q_.front().due_ns <= now_ns) {
      out(std::span<const std::byte>(q_.front().bytes));
      bytes_ -= q_.front().bytes.size();
      q_.pop_front();
    }
  }
  std::size_t frames() const noexcept { return q_.size(); }
  std::size_t bytes() const noexcept { return bytes_; }
  std::uint64_t dropped() const noexcept { return dropped_; }

 private:
  struct Frame {
    std::int64_t due_ns;
    std::vector<std::byte> bytes;
  };
  std::int64_t delay_ns_;
  std::size_t limit_bytes_;
  std::size_t bytes_ = 0;
  std::uint64_t dropped_ = 0;
  std::deque<Frame> q_;
};

}  // namespace ackstall::lab
