// ackstall/core/ring.h — a growable FIFO ring buffer: power-of-two capacity, no allocation once
// it has grown to the largest size it holds (the simulator's event and segment queues, the AFD
// quota's outstanding sends). Indexing is from the front (0 = oldest).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ackstall::core {

template <class T>
class Ring {
 public:
  Ring() = default;
  Ring(const Ring&) = default;
  Ring& operator=(const Ring&) = default;
  // A moved-from ring is empty with no storage, as a new one (its counters would index a buffer
  // it no longer has).
  Ring(Ring&& o) noexcept
      : buf_(std::move(o.buf_)), head_(o.head_), tail_(o.tail_), mask_(o.mask_), capacity_(o.capacity_) {
    o.reset();
  }
  Ring& operator=(Ring&& o) noexcept {
    if (this != &o) {
      buf_ = std::move(o.buf_);
      head_ = o.head_;
      tail_ = o.tail_;
      mask_ = o.mask_;
      capacity_ = o.capacity_;
      o.reset();
    }
    return *this;
  }
  ~Ring() = default;

  bool empty() const noexcept { return head_ == tail_; }
  std::size_t size() const noexcept { return tail_ - head_; }
  T& front() noexcept { return buf_[head_ & mask_]; }
  const T& front() const noexcept { return buf_[head_ & mask_]; }
  T& back() noexcept { return buf_[(tail_ - 1) & mask_]; }
  const T& back() const noexcept { return buf_[(tail_ - 1) & mask_]; }
  T& operator[](std::size_t i) noexcept { return buf_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const noexcept { return buf_[(head_ + i) & mask_]; }
  void push_back(const T& v) {
    if (size() == capacity_) [[unlikely]] grow();
    buf_[tail_++ & mask_] = v;
  }
  // Appends an element and returns it for the caller to write every field: its slot keeps an
  // old element's bytes until then (no value-initialisation on a per-frame path).
  T& append_slot() {
    if (size() == capacity_) [[unlikely]] grow();
    return buf_[tail_++ & mask_];
  }
  void pop_front() noexcept { ++head_; }
  void clear() noexcept { head_ = tail_ = 0; }

 private:
  // Out of line and cold, so that push_back inlines into its callers (the simulator's per-frame
  // paths: docs/BENCHMARKS.md "Issue 41").
  [[gnu::noinline, gnu::cold]] void grow() {
    const std::size_t n = buf_.empty() ? 16 : buf_.size() * 2;
    std::vector<T> nb(n);
    for (std::size_t i = 0; i < size(); ++i) nb[i] = (*this)[i];
    tail_ = size();
    head_ = 0;
    buf_.swap(nb);
    mask_ = n - 1;
    capacity_ = n;
  }
  void reset() noexcept {
    buf_.clear();
    head_ = tail_ = mask_ = capacity_ = 0;
  }
  std::vector<T> buf_;
  // buf_.size(), kept apart: the vector's size is a division by sizeof(T) on every push.
  std::size_t head_ = 0, tail_ = 0, mask_ = 0, capacity_ = 0;
};

}  // namespace ackstall::core
