// core/units.h: the one grammar for durations, rates and sizes.
#include "ackstall/core/units.h"

#include <gtest/gtest.h>

namespace ackstall::core {
namespace {

TEST(Units, Durations) {
  EXPECT_EQ(parse_duration_ns("200ms").value(), 200'000'000);
  EXPECT_EQ(parse_duration_ns("1.5s").value(), 1'500'000'000);
  EXPECT_EQ(parse_duration_ns("25ns").value(), 25);
  EXPECT_EQ(parse_duration_ns("120us").value(), 120'000);
  EXPECT_EQ(parse_duration_ns("0s").value(), 0);
  for (const char* bad : {"", "ms", "200", "-1ms", "1h", "1e400s", "nan s", "1 ms", "ms200", "1.5.2ms",
                          "5m", "5xs", "nan ms"}) {
    const auto r = parse_duration_ns(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message(), std::string("bad duration '") + bad + "': expected " +
                                       std::string(kDurationGrammar));
  }
}

TEST(Units, Rates) {
  EXPECT_EQ(parse_rate_bps("100mbit").value(), 100'000'000);
  EXPECT_EQ(parse_rate_bps("1gbit").value(), 1'000'000'000);
  EXPECT_EQ(parse_rate_bps("8kbit").value(), 8'000);
  EXPECT_EQ(parse_rate_bps("9600bit").value(), 9'600);
  EXPECT_EQ(parse_rate_bps("1.5mbit").value(), 1'500'000);
  for (const char* bad : {"", "100", "0mbit", "-1mbit", "100mbps", "mbit", "0.1bit", "100 mbit", "100mb"})
    EXPECT_FALSE(parse_rate_bps(bad)) << bad;
  EXPECT_NE(parse_rate_bps("100mbps").error().message().find("e.g. 100mbit"), std::string::npos);
}

TEST(Units, SizesAreBinaryMultiples) {
  EXPECT_EQ(parse_size("8192").value(), 8192u);
  EXPECT_EQ(parse_size("8k").value(), 8192u);
  EXPECT_EQ(parse_size("64M").value(), 64u << 20);
  EXPECT_EQ(parse_size("2G").value(), 2ull << 30);
  EXPECT_EQ(parse_size("1.5k").value(), 1536u);
  EXPECT_EQ(parse_size("0").value(), 0u);
  EXPECT_EQ(parse_size("18446744073709551615").value(), 18446744073709551615ull);
  // Every binary spelling the error message names is accepted (8K and 8KiB were refused).
  for (const char* k : {"8k", "8K", "8KiB", "8kiB", "8KB", "8kB"}) EXPECT_EQ(parse_size(k).value(), 8192u) << k;
  for (const char* m : {"1m", "1M", "1MiB", "1MB"}) EXPECT_EQ(parse_size(m).value(), 1u << 20) << m;
  for (const char* g : {"2g", "2G", "2GiB", "2GB"}) EXPECT_EQ(parse_size(g).value(), 2ull << 30) << g;
  EXPECT_EQ(parse_size("64KB").value(), 65536u);
  for (const char* bad : {"", "k", "KiB", "8kb", "8Kb", "8kib", "8KiBB", "8 k", "-8k", "1.1k", "8e3", "1e3k", "99999999999G",
                          "18446744073709551616", " 8k"})
    EXPECT_FALSE(parse_size(bad)) << bad;
}

// "8kib" and "8kb" are refused (a lowercase b is bits) with the byte spelling, not the grammar.
TEST(Units, ALowercaseBSaysBitsAndHowToWriteBytes) {
  EXPECT_EQ(parse_size("8kib").error().message(), "bad size '8kib': a lowercase b reads as bits; for bytes write 8kiB (or 8k)");
  EXPECT_EQ(parse_size("64Kb").error().message(), "bad size '64Kb': a lowercase b reads as bits; for bytes write 64KB (or 64K)");
  for (const char* grammar : {"8qb", "-1kb", "0.1kb", "1e3kb", "kb"}) {
    EXPECT_NE(parse_size(grammar).error().message().find("expected bytes"), std::string::npos) << grammar;
  }
}

TEST(Units, FormatIsTheShortestExactSpellingAndRoundTrips) {
  EXPECT_EQ(format_duration_ns(200'000'000), "200ms");
  EXPECT_EQ(format_duration_ns(1'500'000'000), "1500ms");
  EXPECT_EQ(format_duration_ns(25), "25ns");
  EXPECT_EQ(format_duration_ns(0), "0ns");
  EXPECT_EQ(format_rate_bps(100'000'000), "100mbit");
  EXPECT_EQ(format_rate_bps(1'500), "1500bit");
  EXPECT_EQ(format_size(8192), "8k");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(3ull << 30), "3G");
  for (std::int64_t ns : {std::int64_t{1}, std::int64_t{999}, std::int64_t{1000}, std::int64_t{123456789}, std::int64_t{5000000000}})
    EXPECT_EQ(parse_duration_ns(format_duration_ns(ns)).value(), ns);
  for (std::uint64_t b : {1ull, 1023ull, 1024ull, 98304ull, 1ull << 40})
    EXPECT_EQ(parse_size(format_size(b)).value(), b);
}

TEST(Units, ListsSplitKeepingEmptyItems) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(split_list("220us,2ms"), (V{"220us", "2ms"}));
  EXPECT_EQ(split_list("1,,2"), (V{"1", "", "2"}));
  EXPECT_EQ(split_list("8k,"), (V{"8k", ""}));
  EXPECT_EQ(split_list(""), (V{""}));
  EXPECT_EQ(split_list("a;b", ';'), (V{"a", "b"}));
}

}  // namespace
}  // namespace ackstall::core
