// ScenarioWriter: keys checked against the key table, the text read back to the same values.
#include "ackstall/scenario/writer.h"

#include <gtest/gtest.h>

#include "ackstall/scenario/scenario.h"

namespace ackstall::scenario {
namespace {

TEST(ScenarioWriter, WritesWhatTheLoaderReadsBack) {
  ScenarioWriter w;
  w.comment("emitted by a test");
  ASSERT_TRUE(w.set("scenario.name", std::string("from a \"capture\"")));
  ASSERT_TRUE(w.set("sender.profile", std::string("winxp")));
  ASSERT_TRUE(w.set("sender.send_buffer.kind", std::string("afd")));
  ASSERT_TRUE(w.set("sender.send_buffer.size", std::int64_t{8192}));
  ASSERT_TRUE(w.set("receiver.ack.delack_timeout", std::string("150ms")));
  ASSERT_TRUE(w.set("receiver.rcvbuf", std::int64_t{18824}));
  ASSERT_TRUE(w.set("link.rate", std::string("10mbit")));
  ASSERT_TRUE(w.set("app.transmitter.write_len", std::int64_t{15928}));
  ASSERT_TRUE(w.set("app.transmitter.write_len", std::int64_t{16384}));  // the last value stands
  const std::string text = w.toml();
  EXPECT_EQ(text.rfind("# emitted by a test\n", 0), 0u) << text;
  auto s = parse_scenario(text, "written");
  ASSERT_TRUE(s) << s.error().message() << "\n" << text;
  EXPECT_EQ(s->name, "from a \"capture\"");
  EXPECT_EQ(*get_field(s->config, "sender.send_buffer.size"), *get_field([] {
    sim::ExperimentConfig c;
    (void)set_field(c, "sender.send_buffer.size", std::int64_t{8192});
    return c;
  }(), "sender.send_buffer.size"));
  EXPECT_EQ(s->config.receiver.rcvbuf, 18824);
  EXPECT_EQ(s->config.app.transmitter.write_len, 16384);
  EXPECT_EQ(*get_field(s->config, "receiver.ack.delack_timeout"), "150ms");
  EXPECT_EQ(*get_field(s->config, "link.rate"), "10mbit");
}

// A host cost written as its canonical delay text reads back to the same delay.
TEST(ScenarioWriter, HostCostDelaysRoundTrip) {
  sim::ExperimentConfig c;
  ASSERT_TRUE(set_field(c, "receiver.stack_latency", std::string("30us+exp(100us) + 500ppm*(2ms)")));
  ASSERT_TRUE(set_field(c, "app.receiver.read_cost", std::string("2us")));
  ScenarioWriter w;
  for (const char* key : {"receiver.stack_latency", "app.receiver.read_cost", "sender.per_segment_cost"})
    ASSERT_TRUE(w.set(key, *get_field(c, key))) << key;
  auto s = parse_scenario(w.toml(), "written");
  ASSERT_TRUE(s) << s.error().message() << "\n" << w.toml();
  EXPECT_EQ(s->config.receiver.stack_latency, c.receiver.stack_latency);
  EXPECT_EQ(*get_field(s->config, "receiver.stack_latency"), "30us + exp(100us) + 500ppm * (2ms)");
  EXPECT_EQ(s->config.app.receiver.read_cost, sim::Delay(sim::Nanos::us(2)));
  EXPECT_EQ(s->config.sender.per_segment_cost, c.sender.per_segment_cost);  // none
}

TEST(ScenarioWriter, RefusesWhatTheLoaderWouldRefuse) {
  ScenarioWriter w;
  const auto unknown = w.set("receiver.rcvbuff", std::int64_t{1});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("receiver.rcvbuff"), std::string::npos);
  EXPECT_FALSE(w.set("receiver.ack.delack_timeout", std::string("soon")));
  EXPECT_FALSE(w.set("sender.profile", std::string("winxq")));
  EXPECT_FALSE(w.set("scenario.nam", std::string("x")));
  EXPECT_FALSE(w.set("scenario.name", std::int64_t{3}));
  EXPECT_EQ(w.toml(), "\n");  // nothing refused was kept
}

}  // namespace
}  // namespace ackstall::scenario
