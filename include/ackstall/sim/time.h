// ackstall/sim/time.h — simulated time: integer nanoseconds as a strong type.
//
// Contract:
//   * `Nanos` is both an instant (nanoseconds since the start of a simulation, t = 0 at the
//     first SYN) and a duration. Integer arithmetic only: the simulator never uses floating
//     point for time, so a scenario and a seed give bit-identical event orders everywhere.
//   * Range: int64 nanoseconds = +-292 years. `Nanos::never()` (INT64_MAX) means "not armed".
//   * No implicit conversion from or to integers; build values with the named factories or
//     the `ackstall::sim::literals` suffixes (`200_ms`, `50_us`, `7_ns`, `3_s`).
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <limits>

namespace ackstall::sim {

class Nanos {
 public:
  constexpr Nanos() noexcept = default;
  constexpr explicit Nanos(std::int64_t ns) noexcept : ns_(ns) {}
  // From a std::chrono duration in ns (core::StallThreshold, the public boundary's type).
  constexpr explicit Nanos(std::chrono::nanoseconds d) noexcept : ns_(d.count()) {}

  static constexpr Nanos ns(std::int64_t v) noexcept { return Nanos(v); }
  static constexpr Nanos us(std::int64_t v) noexcept { return Nanos(v * 1'000); }
  static constexpr Nanos ms(std::int64_t v) noexcept { return Nanos(v * 1'000'000); }
  static constexpr Nanos s(std::int64_t v) noexcept { return Nanos(v * 1'000'000'000); }
  static constexpr Nanos zero() noexcept { return Nanos(0); }
  static constexpr Nanos never() noexcept { return Nanos(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t count() const noexcept { return ns_; }
  constexpr double seconds() const noexcept { return static_cast<double>(ns_) * 1e-9; }
  constexpr double millis() const noexcept { return static_cast<double>(ns_) * 1e-6; }
  constexpr double micros() const noexcept { return static_cast<double>(ns_) * 1e-3; }
  constexpr bool is_never() const noexcept { return ns_ == std::numeric_limits<std::int64_t>::max(); }

  constexpr Nanos& operator+=(Nanos o) noexcept { ns_ += o.ns_; return *this; }
  constexpr Nanos& operator-=(Nanos o) noexcept { ns_ -= o.ns_; return *this; }
  friend constexpr Nanos operator+(Nanos a, Nanos b) noexcept { return Nanos(a.ns_ + b.ns_); }
  friend constexpr Nanos operator-(Nanos a, Nanos b) noexcept { return Nanos(a.ns_ - b.ns_); }
  friend constexpr Nanos operator*(Nanos a, std::int64_t k) noexcept { return Nanos(a.ns_ * k); }
  friend constexpr Nanos operator*(std::int64_t k, Nanos a) noexcept { return Nanos(a.ns_ * k); }
  friend constexpr Nanos operator/(Nanos a, std::int64_t k) noexcept { return Nanos(a.ns_ / k); }
  friend constexpr std::int64_t operator/(Nanos a, Nanos b) noexcept { return a.ns_ / b.ns_; }
  friend constexpr Nanos operator%(Nanos a, Nanos b) noexcept { return Nanos(a.ns_ % b.ns_); }
  friend constexpr auto operator<=>(Nanos, Nanos) noexcept = default;
  friend constexpr bool operator==(Nanos, Nanos) noexcept = default;

 private:
  std::int64_t ns_ = 0;
};

constexpr Nanos min(Nanos a, Nanos b) noexcept { return a < b ? a : b; }
constexpr Nanos max(Nanos a, Nanos b) noexcept { return a < b ? b : a; }

namespace literals {
constexpr Nanos operator""_ns(unsigned long long v) noexcept { return Nanos(static_cast<std::int64_t>(v)); }
constexpr Nanos operator""_us(unsigned long long v) noexcept { return Nanos::us(static_cast<std::int64_t>(v)); }
constexpr Nanos operator""_ms(unsigned long long v) noexcept { return Nanos::ms(static_cast<std::int64_t>(v)); }
constexpr Nanos operator""_s(unsigned long long v) noexcept { return Nanos::s(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace ackstall::sim
