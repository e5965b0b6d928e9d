// ackstall/core/log_bucket.h — the buckets of a logarithmic histogram, in integers only.
//
// The scanner's histograms (flights and rounds: 8 buckets an octave of bytes; idle periods and
// ACK-to-data reactions: 4 an octave of microseconds) bucket a value v as floor(k * log2(v)).
// Through libm's log2 that was a measurable share of a text `scan` (docs/BENCHMARKS.md "scan vs
// tshark"); here the octave is std::bit_width and the step within it a comparison of
// the value's 64-bit fixed-point mantissa m = v * 2^(63 - octave) with the step edges
// ceil(2^(63 + i/k)): m is exact and an integer, so m >= ceil(e) <=> m >= e, and the bucket is the
// exact floor(k * log2(v)). Over the buckets' ranges (2^40 bytes, 2^28 us) no value lies close
// enough to an edge for libm's rounding to differ; tests/core/log_bucket_test.cc walks every edge
// and compares with the log2 formula.
// The edges' constants: ceil(2^(63 + i/8)) and ceil(1000 * 2^54 * 2^((j - 4)/4)), computed to 80
// digits with Python's decimal module.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace ackstall::core {

// floor(8 * log2(v)) for v >= 1 (0 for v == 0), at most `last`.
constexpr std::size_t eighth_octave_bucket(std::uint64_t v, std::size_t last) noexcept {
  if (v == 0) return 0;
  const auto octave = static_cast<unsigned>(std::bit_width(v)) - 1;
  const std::uint64_t m = v << (63 - octave);
  const std::size_t steps = std::size_t{m >= 0x8b95c1e3ea8bd6e7} + std::size_t{m >= 0x9837f0518db8a970} +
                            std::size_t{m >= 0xa5fed6a9b15138eb} + std::size_t{m >= 0xb504f333f9de6485} +
                            std::size_t{m >= 0xc5672a115506dade} + std::size_t{m >= 0xd744fccad69d6af5} +
                            std::size_t{m >= 0xeac0c6e7dd24392f};
  return std::min(8 * std::size_t{octave} + steps, last);
}

// floor(4 * log2(us)) of a time in ns as microseconds, us = max(ns, 1000) / 1000, at most `last`.
// With v = max(ns, 1000) in octave o, 4 * log2(v / 1000) = 4 * o - 40 + 4 * (log2 m' + 10 - log2 1000),
// m' = v / 2^o in [1, 2): its floor steps where m' = 2^((j - 4) / 4) * 1000 / 2^9, j = 1..4.
constexpr std::size_t quarter_octave_us_bucket(std::int64_t ns, std::size_t last) noexcept {
  const auto v = static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 1000));
  const auto octave = static_cast<unsigned>(std::bit_width(v)) - 1;  // >= 9
  const std::uint64_t m = v << (63 - octave);
  const std::size_t steps = std::size_t{m >= 0x94a6a0afa4665577} + std::size_t{m >= 0xb0c6d580c2032e2a} +
                            std::size_t{m >= 0xd2395ede1595ba73} + std::size_t{m >= 0xfa00000000000000};
  // v >= 1000 = 0xfa00000000000000 >> 54: in octave 9 all four steps are taken, so this is >= 0.
  return std::min(4 * std::size_t{octave} + steps - 40, last);
}

}  // namespace ackstall::core
