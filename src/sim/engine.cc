#include "ackstall/sim/engine.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ackstall::sim {

namespace {

// The queue is a 4-ary min-heap on (time, sequence) in heap_ (children of i: 4i+1 .. 4i+4): half
// the levels of a binary heap, so a pop moves an event fewer times (docs/BENCHMARKS.md "Issue 41").
// (time, sequence) is a strict total order (sequence numbers are unique), so any heap pops the
// events in the same order (invariant 1).
constexpr std::size_t kArity = 4;

inline bool later(const Event& a, const Event& b) noexcept { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }

// Moves the event at the back up to its place.
inline void sift_up(std::vector<Event>& heap) noexcept {
  std::size_t i = heap.size() - 1;
  const Event e = heap[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!later(heap[parent], e)) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = e;
}

}  // namespace

std::uint64_t EventQueue::schedule(Nanos at, std::uint32_t kind, std::uint32_t tag, std::uint64_t arg) {
  assert(at >= now_ && "scheduling into the past");
  if (at < now_) at = now_;
  const std::uint64_t seq = next_seq_++;
  heap_.push_back(Event{at, seq, kind, tag, arg});
  sift_up(heap_);
  return seq;
}

void EventQueue::schedule_reserved(Nanos at, std::uint64_t seq, std::uint32_t kind,
                                   std::uint32_t tag, std::uint64_t arg) {
  assert(at >= now_ && "scheduling into the past");
  assert(seq < next_seq_ && "sequence number not reserved");
  if (at < now_) at = now_;
  heap_.push_back(Event{at, seq, kind, tag, arg});
  sift_up(heap_);
}

Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n > 0) {
    // The last event takes the root's place and goes down while one of its children is earlier.
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = kArity * hole + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = std::min(first + kArity, n);
      for (std::size_t c = first + 1; c < end; ++c)
        if (later(heap_[best], heap_[c])) best = c;
      if (!later(last, heap_[best])) break;
      heap_[hole] = heap_[best];
      hole = best;
    }
    heap_[hole] = last;
  }
  now_ = top.at;
  return top;
}

namespace {
__extension__ typedef unsigned __int128 u128;
std::uint64_t splitmix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(std::uint64_t seed) noexcept {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() noexcept {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::below(std::uint64_t bound) noexcept {
  // Lemire, "Fast Random Integer Generation in an Interval" (2019).
  u128 m = static_cast<u128>(next()) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<u128>(next()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

Nanos exponential(Rng& rng, Nanos mean) noexcept {
  if (mean.count() <= 0) return Nanos::zero();
  // Inverse transform of a 53-bit uniform in (0, 1].
  const double u = (static_cast<double>(rng.next() >> 11) + 1.0) * 0x1.0p-53;
  return Nanos(static_cast<std::int64_t>(-std::log(u) * static_cast<double>(mean.count())));
}

Nanos from_quantiles(Rng& rng, std::span<const Nanos> quantiles) noexcept {
  if (quantiles.size() < 2) return quantiles.empty() ? Nanos::zero() : quantiles.front();
  // A 53-bit uniform in [0, 1) scaled onto the n - 1 intervals between the quantiles.
  const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  const double at = u * static_cast<double>(quantiles.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(at), quantiles.size() - 2);
  const double frac = at - static_cast<double>(i);
  const auto lo = static_cast<double>(quantiles[i].count()), hi = static_cast<double>(quantiles[i + 1].count());
  return Nanos(static_cast<std::int64_t>(lo + frac * (hi - lo)));
}

}  // namespace ackstall::sim
