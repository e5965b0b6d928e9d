// lab::parse_rate (core's rate grammar, 8kbit..100gbit) and the shaped link's line rate
// (core/link_framing.h).
#include <gtest/gtest.h>

#include "ackstall/lab/config.h"

namespace ackstall::lab {
namespace {

TEST(LabRate, ParsesTcRates) {
  EXPECT_EQ(parse_rate("100mbit"), 100'000'000);
  EXPECT_EQ(parse_rate("1.5gbit"), 1'500'000'000);
  EXPECT_EQ(parse_rate("8kbit"), 8'000);
  EXPECT_EQ(parse_rate("100gbit"), 100'000'000'000);
}

TEST(LabRate, RejectsOtherTextAndOutOfRange) {
  EXPECT_FALSE(parse_rate("100"));
  EXPECT_FALSE(parse_rate("fast"));
  EXPECT_FALSE(parse_rate(""));
  const auto low = parse_rate("7999bit");
  ASSERT_FALSE(low);
  EXPECT_EQ(low.error().message(), "rate '7999bit' is outside 8kbit..100gbit");
  EXPECT_FALSE(parse_rate("101gbit"));
}

TEST(LabRate, LineRateIsEthernetFramedGoodput) {
  // 1500-byte frames cost 1538 byte-times; payload 1448 with timestamps, 1460 without.
  EXPECT_DOUBLE_EQ(line_rate_bytes_per_s(100'000'000, true), 100e6 / 8 * 1448 / 1538);
  EXPECT_DOUBLE_EQ(line_rate_bytes_per_s(100'000'000, false), 100e6 / 8 * 1460 / 1538);
  EXPECT_DOUBLE_EQ(line_rate_bytes_per_s(20'000'000, true), 20e6 / 8 * 1448 / 1538);
}

TEST(LabDropTails, ParsesAProbabilityAndRejectsTheRest) {
  EXPECT_EQ(*parse_drop_probability("0.3"), 0.3);
  EXPECT_EQ(*parse_drop_probability("1"), 1.0);
  EXPECT_EQ(*parse_drop_probability("0"), 0.0);
  for (const char* bad : {"", "-0.1", "1.01", "30%", "nan", "inf", "0.3x", "1e-2"}) {
    const auto r = parse_drop_probability(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
    EXPECT_NE(r.error().message().find(std::string("'") + bad + "'"), std::string::npos) << r.error().message();
  }
}

TEST(LabDropTails, TailDropsBringUpTheMiddleHost) {
  LabConfig cfg;
  EXPECT_FALSE(cfg.middle());
  cfg.drop_tails = 0.2;
  EXPECT_TRUE(cfg.middle());
}

}  // namespace
}  // namespace ackstall::lab
