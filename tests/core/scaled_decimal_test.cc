#include "ackstall/core/scaled_decimal.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <random>
#include <string>

namespace ackstall::core {
namespace {

double power10(int k) {
  double p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

std::string ours(std::int64_t ns, int k) {
  char buf[kScaledDecimalMax];
  const std::size_t n = write_scaled_decimal(ns, k, buf);
  return std::string(buf, n);
}

// What the reports printed before: the double, shortest round trip.
std::string theirs(std::int64_t ns, int k) { return fmt::format("{}", static_cast<double>(ns) / power10(k)); }

TEST(ScaledDecimal, ExactQuotientWithoutTrailingZeros) {
  EXPECT_EQ(ours(41'227'000, 6), "41.227");
  EXPECT_EQ(ours(200'000'000, 6), "200");
  EXPECT_EQ(ours(0, 9), "0");
  EXPECT_EQ(ours(-1'500'000, 6), "-1.5");
  EXPECT_EQ(ours(1'343'000, 9), "0.001343");
  EXPECT_EQ(ours(100, 6), "0.0001");
}

TEST(ScaledDecimal, LeavesExponentNotationAndLongValuesToTheCaller) {
  EXPECT_EQ(ours(99, 6), "");  // 9.9e-05 in fmt
  EXPECT_EQ(ours(5, 9), "");
  EXPECT_EQ(ours(1'000'000'000'000'000, 6), "");  // 16 digits
  EXPECT_EQ(ours(1, 0), "");                       // scale out of range
}

// The claim of the header: wherever it writes, it writes what fmt writes for the double.
TEST(ScaledDecimal, AgreesWithShortestRoundTripOfTheDouble) {
  std::mt19937_64 rng(20061);
  int compared = 0;
  for (int k : {3, 6, 9}) {
    for (int magnitude = 0; magnitude <= 15; ++magnitude) {
      const auto top = static_cast<std::int64_t>(power10(magnitude));
      std::uniform_int_distribution<std::int64_t> pick(-top, top);
      for (int i = 0; i < 2000; ++i) {
        const std::int64_t ns = pick(rng);
        const std::string got = ours(ns, k);
        if (got.empty()) continue;
        ASSERT_EQ(got, theirs(ns, k)) << "ns=" << ns << " k=" << k;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 60'000);
}

// write_decimal writes what std::to_chars writes: at every power of ten +- 1, and random values of
// every width.
TEST(ScaledDecimal, WriteDecimalAgreesWithToChars) {
  const auto expect_same = [](std::uint64_t v) {
    char ours_text[kDecimalMax];
    char theirs_text[kDecimalMax];
    char* e = write_decimal(v, ours_text);
    const auto r = std::to_chars(theirs_text, theirs_text + sizeof theirs_text, v);
    ASSERT_EQ(std::string(ours_text, static_cast<std::size_t>(e - ours_text)), std::string(theirs_text, static_cast<std::size_t>(r.ptr - theirs_text))) << "v=" << v;
  };
  std::uint64_t p = 1;
  for (int k = 0; k <= 19; ++k, p *= 10) {
    expect_same(p);
    expect_same(p - 1);
    expect_same(p + 1);
  }
  expect_same(~std::uint64_t{0});
  for (std::uint64_t v = 0; v <= 100'000; ++v) expect_same(v);
  std::mt19937_64 rng(41);
  for (int i = 0; i < 200'000; ++i) expect_same(rng() >> (rng() % 64));
}

}  // namespace
}  // namespace ackstall::core
