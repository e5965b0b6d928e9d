#include "ackstall/sim/engine.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ackstall::sim {

std::uint64_t EventQueue::schedule(Nanos at, std::uint32_t kind, std::uint32_t tag, std::uint64_t arg) {
  assert(at >= now_ && "scheduling into the past");
  if (at < now_) at = now_;
  const std::uint64_t seq = next_seq_++;
  heap_.push_back(Event{at, seq, kind, tag, arg});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return seq;
}

void EventQueue::schedule_reserved(Nanos at, std::uint64_t seq, std::uint32_t kind,
                                   std::uint32_t tag, std::uint64_t arg) {
  assert(at >= now_ && "scheduling into the past");
  assert(seq < next_seq_ && "sequence number not reserved");
  if (at < now_) at = now_;
  heap_.push_back(Event{at, seq, kind, tag, arg});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

Event EventQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Event e = heap_.back();
  heap_.pop_back();
  now_ = e.at;
  return e;
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
