#include "ackstall/core/log_bucket.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace ackstall::core {
namespace {

// The histograms' sizes (src/pcap/half_flow.h, src/pcap/held_ack.h): the clamp of each formula.
constexpr std::size_t kFlightLast = 8 * 40 - 1;
constexpr std::size_t kIdleLast = 112 - 1;

// The buckets as the scanner computed them through libm before (src/pcap/half_flow.cc).
std::size_t log2_flight(std::uint64_t v) {
  const double b = 8.0 * std::log2(static_cast<double>(v));
  return std::min(static_cast<std::size_t>(std::max(b, 0.0)), kFlightLast);
}
std::size_t log2_idle(std::int64_t ns) {
  const double us = static_cast<double>(std::max<std::int64_t>(ns, 1000)) / 1000.0;
  return std::min(static_cast<std::size_t>(4.0 * std::log2(us)), kIdleLast);
}

void expect_flight(std::uint64_t v) { ASSERT_EQ(eighth_octave_bucket(v, kFlightLast), log2_flight(v)) << "v=" << v; }
void expect_idle(std::int64_t ns) { ASSERT_EQ(quarter_octave_us_bucket(ns, kIdleLast), log2_idle(ns)) << "ns=" << ns; }

TEST(LogBucket, FlightMatchesLog2AtEveryEdge) {
  // Bucket b starts at 2^(b/8): every edge (exact powers of two included, and the clamp's) +- 4.
  for (int b = 0; b <= 8 * 41; ++b) {
    const auto edge = static_cast<std::uint64_t>(std::floor(std::exp2(static_cast<long double>(b) / 8.0L)));
    for (std::uint64_t v = edge > 4 ? edge - 4 : 1; v <= edge + 4; ++v) expect_flight(v);
  }
  for (int k = 0; k < 64; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    expect_flight(p);
    expect_flight(p + 1);
    if (p > 1) expect_flight(p - 1);
  }
  expect_flight(~std::uint64_t{0});
}

TEST(LogBucket, FlightMatchesLog2OnEverySmallValueAndRandomOnes) {
  for (std::uint64_t v = 1; v <= 1'000'000; ++v) expect_flight(v);
  std::mt19937_64 rng(41);
  for (int i = 0; i < 1'000'000; ++i) expect_flight((rng() >> (rng() % 64)) | 1);
}

TEST(LogBucket, ZeroIsTheFirstBucket) { EXPECT_EQ(eighth_octave_bucket(0, kFlightLast), 0U); }

TEST(LogBucket, IdleMatchesLog2AtEveryEdge) {
  // Bucket b starts at 1000 * 2^(b/4) ns (exact at b = 4k: 1000 * 2^k): every edge +- 4.
  for (int b = 0; b <= 4 * 30; ++b) {
    const auto edge = static_cast<std::int64_t>(std::floor(1000.0L * std::exp2(static_cast<long double>(b) / 4.0L)));
    for (std::int64_t ns = edge - 4; ns <= edge + 4; ++ns) expect_idle(ns);
  }
  for (int k = 0; k < 63; ++k) {
    const std::int64_t p = std::int64_t{1} << k;
    expect_idle(p);
    expect_idle(p + 1);
    expect_idle(p - 1);
    expect_idle(1000 * (p >> 10));
  }
  expect_idle(INT64_MAX);
  expect_idle(INT64_MIN);
  expect_idle(-1);
  expect_idle(0);
}

TEST(LogBucket, IdleMatchesLog2OnEverySmallValueAndRandomOnes) {
  for (std::int64_t ns = 0; ns <= 2'000'000; ++ns) expect_idle(ns);
  std::mt19937_64 rng(41);
  for (int i = 0; i < 1'000'000; ++i) expect_idle(static_cast<std::int64_t>(rng() >> (1 + rng() % 63)));
}

}  // namespace
}  // namespace ackstall::core
