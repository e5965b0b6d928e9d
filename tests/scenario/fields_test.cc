#include "ackstall/scenario/fields.h"

#include <gtest/gtest.h>

#include <set>

namespace ackstall::scenario {
namespace {

using sim::Nanos;

TEST(Fields, Durations) {
  EXPECT_EQ(parse_duration("200ms"), Nanos::ms(200));
  EXPECT_EQ(parse_duration("50us"), Nanos::us(50));
  EXPECT_EQ(parse_duration("42.7ms"), Nanos::us(42700));
  EXPECT_EQ(parse_duration("3s"), Nanos::s(3));
  EXPECT_EQ(parse_duration("7ns"), Nanos::ns(7));
  EXPECT_EQ(parse_duration("0ms"), Nanos::zero());
  for (const char* bad : {"", "ms", "200", "-1ms", "1.5.2ms", "10 ms", "1e400s", "nan ms", "5m", "5xs"})
    EXPECT_EQ(parse_duration(bad), std::nullopt) << bad;
}

TEST(Fields, Rates) {
  EXPECT_EQ(parse_rate_bps("100mbit"), 100'000'000);
  EXPECT_EQ(parse_rate_bps("1gbit"), 1'000'000'000);
  EXPECT_EQ(parse_rate_bps("64kbit"), 64'000);
  EXPECT_EQ(parse_rate_bps("9600bit"), 9600);
  for (const char* bad : {"", "100", "mbit", "0mbit", "-5mbit", "100 mbit", "100mb"})
    EXPECT_EQ(parse_rate_bps(bad), std::nullopt) << bad;
}

TEST(Fields, SetsEachType) {
  sim::ExperimentConfig c;
  EXPECT_TRUE(set_field(c, "receiver.ack.ack_on_push", Value{true}));
  EXPECT_TRUE(c.receiver.ack.ack_on_push);
  EXPECT_TRUE(set_field(c, "sender.send_buffer.size", Value{std::int64_t{32768}}));
  EXPECT_EQ(c.sender.send_buffer.size, 32768);
  EXPECT_TRUE(set_field(c, "receiver.ack.delack_timeout", Value{std::string("100ms")}));
  EXPECT_EQ(c.receiver.ack.delack_timeout, Nanos::ms(100));
  EXPECT_TRUE(set_field(c, "link.rate", Value{std::string("10mbit")}));
  EXPECT_EQ(c.link.rate_bps, 10'000'000);
  EXPECT_TRUE(set_field(c, "app.transmitter.chunking", Value{std::string("seed")}));
  EXPECT_EQ(c.app.transmitter.chunking, core::PolicyKind::seed);
  EXPECT_TRUE(set_field(c, "receiver.ack.kind", Value{std::string("linux-pingpong")}));
  EXPECT_EQ(c.receiver.ack.kind, sim::AckPolicyKind::linux_pingpong);
}

TEST(Fields, ErrorsNameKeyAndProblem) {
  sim::ExperimentConfig c;
  EXPECT_EQ(set_field(c, "receiver.ack.bogus", Value{true}).error().message(), "receiver.ack.bogus: unknown key");
  EXPECT_EQ(set_field(c, "sender.mss", Value{std::string("big")}).error().message(),
            "sender.mss: expected an integer, got a string");
  EXPECT_EQ(set_field(c, "sender.mss", Value{std::int64_t{1} << 40}).error().message(),
            "sender.mss: integer 1099511627776 out of range");
  EXPECT_EQ(set_field(c, "sender.nagle", Value{std::string("sometimes")}).error().message(),
            "sender.nagle: unknown value \"sometimes\" (expected one of: off, classic, minshall)");
  EXPECT_EQ(set_field(c, "link.prop_delay", Value{std::int64_t{5}}).error().message(),
            "link.prop_delay: expected a duration string like \"200ms\", got a integer");
}

TEST(Fields, PathsAreUniqueAndCoverBothSides) {
  std::set<std::string> seen;
  for (const FieldInfo& f : fields()) {
    EXPECT_TRUE(seen.insert(f.path).second) << f.path;
    EXPECT_FALSE(f.type.empty()) << f.path;
  }
  EXPECT_TRUE(seen.contains("sender.ack.kind"));
  EXPECT_TRUE(seen.contains("receiver.ack.kind"));
  EXPECT_GT(seen.size(), 60u);
}

}  // namespace
}  // namespace ackstall::scenario
