// Sweep axes (lists, arithmetic and geometric ranges in each key's grammar), shards, cell order.
#include "ackstall/scenario/sweep.h"

#include <gtest/gtest.h>

#include <set>

namespace ackstall::scenario {
namespace {

using V = std::vector<std::string>;

TEST(SweepAxis, ListsKeepTheirSpelling) {
  auto a = parse_sweep_axis("app.transmitter.chunking=none,seed,cygwin");
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->key, "app.transmitter.chunking");
  EXPECT_EQ(a->values, (V{"none", "seed", "cygwin"}));
  EXPECT_FALSE(a->geometric);
  auto p = parse_sweep_axis("receiver.profile=linux,openbsd-3.9");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->values, (V{"linux", "openbsd-3.9"}));
}

TEST(SweepAxis, ArithmeticRangesInTheKeysGrammar) {
  auto sizes = parse_sweep_axis("app.transmitter.write_len=1k..4k:1k");
  ASSERT_TRUE(sizes) << sizes.error().message();
  EXPECT_EQ(sizes->values, (V{"1k", "2k", "3k", "4k"}));
  auto ints = parse_sweep_axis("app.transmitter.writes=10..30:10");
  ASSERT_TRUE(ints);
  EXPECT_EQ(ints->values, (V{"10", "20", "30"}));
  auto times = parse_sweep_axis("app.transmitter.wakeup_latency=0us..300us:100us");
  ASSERT_TRUE(times) << times.error().message();
  EXPECT_EQ(times->values, (V{"0ns", "100us", "200us", "300us"}));
  auto delays = parse_sweep_axis("app.transmitter.wakeup=0us..300us:100us");  // constant delays
  ASSERT_TRUE(delays) << delays.error().message();
  EXPECT_EQ(delays->values, (V{"0ns", "100us", "200us", "300us"}));
}

TEST(SweepAxis, GeometricRanges) {
  auto a = parse_sweep_axis("sender.send_buffer.size=1k..256k:x2");
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->values.size(), 9u);
  EXPECT_EQ(a->values.front(), "1k");
  EXPECT_EQ(a->values.back(), "256k");
  EXPECT_TRUE(a->geometric);
  auto r = parse_sweep_axis("link.rate=10mbit..1gbit:x10");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->values, (V{"10mbit", "100mbit", "1gbit"}));
}

TEST(SweepAxis, ErrorsNameTheKeyAndTheValue) {
  const auto msg = [](std::string_view spec) {
    auto a = parse_sweep_axis(spec);
    return a ? std::string("ok") : a.error().message();
  };
  EXPECT_NE(msg("no.such.key=1,2").find("no.such.key: unknown key"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.chunking=none,bogus").find("bogus"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=8q").find("8q"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.chunking=none..seed:1").find("range needs"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=4k..1k:1k").find("ends before"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=1k..4k:x1").find("> 1"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=1k..4k:0").find("> 0"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=0..4k:x2").find("above 0"), std::string::npos);
  // A range that stops short of its end is an error naming both values it could end at.
  EXPECT_EQ(msg("sender.send_buffer.size=1k..100k:x2"),
            "sender.send_buffer.size: range '1k..100k:x2' does not reach its end: it stops at 64k, the next "
            "value is 128k; end it at either");
  EXPECT_EQ(msg("app.transmitter.writes=10..35:10"),
            "app.transmitter.writes: range '10..35:10' does not reach its end: it stops at 30, the next value "
            "is 40; end it at either");
  EXPECT_NE(msg("app.transmitter.wakeup_latency=0us..250us:100us").find("stops at 200us"), std::string::npos);
  EXPECT_EQ(msg("no.such.key=1,2").find("--"), std::string::npos);  // a library names no CLI flag
  EXPECT_NE(msg("app.transmitter.writes=1..10000000:7").find("1000000"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=1,,2").find("empty value"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=1,1").find("twice"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.write_len=").find("expected KEY="), std::string::npos);
  EXPECT_NE(msg("=1,2").find("expected KEY="), std::string::npos);
  EXPECT_NE(msg("receiver.profile=nosuch").find("unknown profile"), std::string::npos);
  EXPECT_NE(msg("app.transmitter.writes=1..100000000:1").find("1000000"), std::string::npos);
  EXPECT_NE(msg("app.receiver.read_late_quantiles=1ms,2ms").find("a list key cannot be swept"), std::string::npos);
}

TEST(Sweep, CellsAreTheCartesianProductLastAxisFastest) {
  auto s = Sweep::make({*parse_sweep_axis("app.transmitter.writes=1,2"),
                        *parse_sweep_axis("app.transmitter.chunking=none,seed,cygwin")});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cells(), 6u);
  EXPECT_EQ(s->sets(0), (V{"app.transmitter.writes=1", "app.transmitter.chunking=none"}));
  EXPECT_EQ(s->sets(1), (V{"app.transmitter.writes=1", "app.transmitter.chunking=seed"}));
  EXPECT_EQ(s->sets(5), (V{"app.transmitter.writes=2", "app.transmitter.chunking=cygwin"}));
  EXPECT_FALSE(Sweep::make({*parse_sweep_axis("app.transmitter.writes=1,2"),
                            *parse_sweep_axis("app.transmitter.writes=3")}));
}

TEST(Sweep, ShardsPartitionTheCells) {
  auto s = Sweep::make({*parse_sweep_axis("app.transmitter.writes=1..7:1")});
  ASSERT_TRUE(s);
  std::multiset<std::uint64_t> seen;
  for (std::uint64_t i = 1; i <= 3; ++i) {
    const Shard shard{i, 3};
    for (std::uint64_t k = 0; k < s->shard_cells(shard); ++k) seen.insert(s->shard_cell(shard, k));
  }
  EXPECT_EQ(seen, (std::multiset<std::uint64_t>{0, 1, 2, 3, 4, 5, 6}));
  // More shards than cells: the extra shards are empty.
  EXPECT_EQ(s->shard_cells({9, 9}), 0u);
  EXPECT_EQ(s->shard_cells({7, 9}), 1u);
}

TEST(Shard, Parses) {
  auto s = parse_shard("2/4");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 4u);
  for (const char* bad : {"0/4", "5/4", "2/0", "2", "a/b", "/4", "2/", "1/4x"})
    EXPECT_FALSE(parse_shard(bad)) << bad;
}

}  // namespace
}  // namespace ackstall::scenario
