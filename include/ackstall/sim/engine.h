// ackstall/sim/engine.h — the discrete-event engine. Knows nothing of networking.
//
// Invariants (tested in tests/sim/engine_test.cc):
//   1. Events pop in (time, insertion sequence) order: two events at the same nanosecond pop in
//      the order they were scheduled. Nothing else (addresses, hashing) influences the order.
//   2. Time never goes backwards: scheduling before now() is a programming error (asserted and
//      clamped to now() in release builds).
//   3. An Event is a plain value (time, seq, kind, tag, arg): no callbacks, no allocation per
//      event once the heap has grown to the peak number of pending events.
//   4. Timers are lazy (Timer): cancelling leaves the queued event to be ignored, and moving a
//      timer later (the RTO restarted on every ACK) queues nothing: the queued event re-queues
//      itself at the new time when it pops. The re-queued event carries the sequence number
//      reserved when the timer was armed, so events pop in exactly the order they would if
//      every arm scheduled an event at once (invariant 1 is kept; tested).
//   5. Everything is per instance: no globals, so simulations may run on parallel threads.
//   6. Rng: xoshiro256** seeded by splitmix64; the same seed gives the same stream on every
//      platform (no std:: distributions, whose output is implementation-defined).
#pragma once

#include "ackstall/core/ring.h"
#include "ackstall/sim/time.h"

#include <cstdint>
#include <span>
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

  // Takes the next insertion sequence number without scheduling anything, for an event that
  // will be queued later with schedule_reserved() (Timer) and must order as if queued now.
  std::uint64_t reserve_seq() noexcept { return next_seq_++; }
  // Queues an event under a sequence number from reserve_seq() (each used once).
  void schedule_reserved(Nanos at, std::uint64_t seq, std::uint32_t kind, std::uint32_t tag = 0,
                         std::uint64_t arg = 0);

  // Time of the earliest event; Nanos::never() when empty.
  Nanos next_time() const noexcept { return heap_.empty() ? Nanos::never() : heap_.front().at; }

  // Removes the earliest event and advances now() to its time. Precondition: !empty().
  Event pop();

  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  std::vector<Event> heap_;  // a 4-ary min-heap on (at, seq) (engine.cc)
  Nanos now_ = Nanos::zero();
  std::uint64_t next_seq_ = 0;
};

// A re-armable timer with at most one event in the queue for every move to a later time
// (invariant 4). The owner routes each popped event of this timer to on_event().
class Timer {
 public:
  bool armed() const noexcept { return !at_.is_never(); }
  Nanos at() const noexcept { return at_; }

  // Arms the timer, or moves it, to expire at `at` (>= q.now()) with an event of `kind`/`tag`.
  void arm(EventQueue& q, Nanos at, std::uint32_t kind, std::uint32_t tag) {
    if (at < q.now()) at = q.now();  // as EventQueue::schedule clamps (invariant 2)
    at_ = at;
    seq_ = q.reserve_seq();
    // A queued event at or before `at` pops first and re-queues itself (on_event).
    if (!queued_at_.is_never() && queued_at_ <= at) return;
    // None queued, or the queued one is too late: queue this one; the later one goes stale.
    q.schedule_reserved(at, seq_, kind, tag);
    queued_at_ = at;
    queued_seq_ = seq_;
  }
  void cancel() noexcept { at_ = Nanos::never(); }

  // A popped event of this timer: true when the timer expires now (it is then disarmed).
  bool on_event(EventQueue& q, const Event& e) {
    if (e.seq != queued_seq_ || queued_at_.is_never()) return false;  // superseded
    queued_at_ = Nanos::never();
    if (at_.is_never()) return false;  // cancelled
    if (e.at == at_ && e.seq == seq_) {
      at_ = Nanos::never();
      return true;
    }
    q.schedule_reserved(at_, seq_, e.kind, e.tag);  // moved later since it was queued
    queued_at_ = at_;
    queued_seq_ = seq_;
    return false;
  }

 private:
  Nanos at_ = Nanos::never();         // expiry; never = disarmed
  std::uint64_t seq_ = 0;             // its sequence number (reserved by arm)
  Nanos queued_at_ = Nanos::never();  // the event this timer has in the queue, if any
  std::uint64_t queued_seq_ = 0;
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

// An exponential draw of the given mean from the run's RNG (zero mean: no draw, so runs without
// jitter consume no random numbers and keep their results).
Nanos exponential(Rng& rng, Nanos mean) noexcept;
// A draw from a distribution given by n >= 2 evenly spaced quantiles (p0 .. p100, rising):
// inverse transform, linear between neighbouring quantiles. Empty: zero, and no draw. (The
// reader's late wake-ups, app_ttcp.h; the shaper's late watchdog, simulation.cc.)
Nanos from_quantiles(Rng& rng, std::span<const Nanos> quantiles) noexcept;

// Growable FIFO without per-element allocation (core/ring.h).
using core::Ring;

}  // namespace ackstall::sim
