// ackstall/sim/engine.h — the discrete-event engine. Knows nothing of networking.
//
// Invariants (tested in tests/sim/engine_test.cc):
//   1. Events pop in (time, insertion sequence) order: two events at the same nanosecond pop in
//      the order they were scheduled. Nothing else (addresses, hashing) influences the order.
//   2. Time never goes backwards: scheduling before now() is a programming error (asserted and
//      clamped to now() in release builds).
//   3. An Event is a plain value (time, seq, kind, tag, arg): no callbacks, no allocation per
//      event once the heap has grown to the peak number of pending events.
//   4. Cancellation is lazy: a TimerSlot bumps its generation; stale events carry the old
//      generation and are skipped by the owner (TimerSlot::fires).
//   5. Everything is per instance: no globals, so simulations may run on parallel threads.
//   6. Rng: xoshiro256** seeded by splitmix64; the same seed gives the same stream on every
//      platform (no std:: distributions, whose output is implementation-defined).
#pragma once

#include "ackstall/sim/time.h"

#include <cstdint>
#include <vector>

namespace ackstall::sim {

struct Event {
  Nanos at;
  std::uint64_t seq = 0;
  std::uint32_t kind = 0;  // meaning chosen by the owner of the queue
  std::uint32_t tag = 0;
  std::uint64_t arg = 0;
};

class EventQueue {
 public:
  Nanos now() const noexcept { return now_; }
  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  std::uint64_t scheduled() const noexcept { return next_seq_; }

  // Schedules an event at `at` (>= now()). Returns its insertion sequence number.
  std::uint64_t schedule(Nanos at, std::uint32_t kind, std::uint32_t tag = 0, std::uint64_t arg = 0);

  // Time of the earliest event; Nanos::never() when empty.
  Nanos next_time() const noexcept { return heap_.empty() ? Nanos::never() : heap_.front().at; }

  // Removes the earliest event and advances now() to its time. Precondition: !empty().
  Event pop();

  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  // A function object, not a function pointer, so that std::push_heap/pop_heap inline it
  // (as a pointer it was ~30 % of a simulation's run time).
  struct Later {
    bool operator()(const Event& a, const Event& b) const noexcept {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  std::vector<Event> heap_;
  Nanos now_ = Nanos::zero();
  std::uint64_t next_seq_ = 0;
};

// A re-armable timer whose pending events are invalidated by generation.
class TimerSlot {
 public:
  bool armed() const noexcept { return !at_.is_never(); }
  Nanos at() const noexcept { return at_; }
  // Arms (or moves) the timer; the caller schedules an event carrying the returned generation.
  std::uint64_t arm(Nanos at) noexcept { at_ = at; return ++gen_; }
  void cancel() noexcept { at_ = Nanos::never(); ++gen_; }
  // True when an event with `generation` is this timer's live expiry; disarms it.
  bool fires(std::uint64_t generation) noexcept {
    if (generation != gen_ || at_.is_never()) return false;
    at_ = Nanos::never();
    return true;
  }

 private:
  Nanos at_ = Nanos::never();
  std::uint64_t gen_ = 0;
};

class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept;
  std::uint64_t next() noexcept;
  // Uniform in [0, bound) (bound > 0), by Lemire's multiply-shift with rejection.
  std::uint64_t below(std::uint64_t bound) noexcept;
  // Uniform duration in [0, span); zero when span <= 0.
  Nanos uniform(Nanos span) noexcept {
    return span.count() <= 0 ? Nanos::zero()
                             : Nanos(static_cast<std::int64_t>(below(static_cast<std::uint64_t>(span.count()))));
  }

 private:
  std::uint64_t s_[4];
};

// Fixed-capacity-growing FIFO without per-element allocation (a power-of-two ring).
template <class T>
class Ring {
 public:
  bool empty() const noexcept { return head_ == tail_; }
  std::size_t size() const noexcept { return tail_ - head_; }
  T& front() noexcept { return buf_[head_ & mask_]; }
  const T& front() const noexcept { return buf_[head_ & mask_]; }
  T& back() noexcept { return buf_[(tail_ - 1) & mask_]; }
  T& operator[](std::size_t i) noexcept { return buf_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const noexcept { return buf_[(head_ + i) & mask_]; }
  void push_back(const T& v) {
    if (size() == buf_.size()) grow();
    buf_[tail_++ & mask_] = v;
  }
  void pop_front() noexcept { ++head_; }

 private:
  void grow() {
    const std::size_t n = buf_.empty() ? 16 : buf_.size() * 2;
    std::vector<T> nb(n);
    for (std::size_t i = 0; i < size(); ++i) nb[i] = (*this)[i];
    tail_ = size();
    head_ = 0;
    buf_.swap(nb);
    mask_ = n - 1;
  }
  std::vector<T> buf_;
  std::size_t head_ = 0, tail_ = 0, mask_ = 0;
};

}  // namespace ackstall::sim
