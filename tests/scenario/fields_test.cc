#include "ackstall/scenario/fields.h"

#include <gtest/gtest.h>

#include <set>

namespace ackstall::scenario {
namespace {

using sim::Nanos;

TEST(Fields, DurationsAndRatesUseCoresGrammarAndNameTheKey) {
  sim::ExperimentConfig c;
  ASSERT_TRUE(set_field(c, "receiver.ack.delack_timeout", Value{std::string("42.7ms")}));
  EXPECT_EQ(c.receiver.ack.delack_timeout, Nanos::us(42700));
  ASSERT_TRUE(set_field(c, "link.rate", Value{std::string("64kbit")}));
  EXPECT_EQ(c.link.rate_bps, 64'000);
  const auto d = set_field(c, "receiver.ack.delack_timeout", Value{std::string("5m")});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(),
            "receiver.ack.delack_timeout: bad duration '5m': expected a number and ns, us, ms or s, e.g. 200ms");
  const auto r = set_field(c, "link.rate", Value{std::string("100mb")});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "link.rate: bad rate '100mb': expected a number and bit, kbit, mbit or gbit, e.g. 100mbit");
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
  EXPECT_FALSE(c.app.transmitter.allow_raise_sndbuf);
  EXPECT_TRUE(set_field(c, "app.transmitter.allow_raise_sndbuf", Value{true}));
  EXPECT_TRUE(c.app.transmitter.allow_raise_sndbuf);
  EXPECT_TRUE(set_field(c, "app.receiver.read_wakeup", Value{std::string("15us+exp(30us) + 120ppm*(171us)")}));
  EXPECT_EQ(*get_field(c, "app.receiver.read_wakeup"), "15us + exp(30us) + 120ppm * (171us)");
  EXPECT_EQ(c.app.receiver.read_wakeup.terms().size(), 3u);
  EXPECT_TRUE(set_field(c, "app.receiver.read_wakeup", Value{std::string("none")}));
  EXPECT_TRUE(c.app.receiver.read_wakeup.none());
  EXPECT_FALSE(c.receiver.ack.ack_at_read);
  EXPECT_TRUE(set_field(c, "receiver.ack.ack_at_read", Value{true}));
  EXPECT_TRUE(c.receiver.ack.ack_at_read);
  EXPECT_EQ(*get_field(c, "receiver.ack.ack_at_read"), "true");
  EXPECT_TRUE(set_field(c, "link.data_lateness", Value{std::string("trace(0us,19us,1ms)")}));
  EXPECT_EQ(*get_field(c, "link.data_lateness"), "trace(0ns, 19us, 1ms)");
}

TEST(Fields, ErrorsNameKeyAndProblem) {
  sim::ExperimentConfig c;
  EXPECT_EQ(set_field(c, "receiver.ack.bogus", Value{true}).error().message(), "receiver.ack.bogus: unknown key");
  EXPECT_EQ(set_field(c, "receiver.ack.ack_on_psh", Value{true}).error().message(),
            "receiver.ack.ack_on_psh: unknown key (did you mean receiver.ack.ack_on_push?)");
  EXPECT_EQ(set_field(c, "reciever.profile", Value{std::string("linux")}).error().message(),
            "reciever.profile: unknown key (did you mean receiver.profile?)");
  EXPECT_EQ(set_field(c, "sender.mss", Value{std::string("big")}).error().message(),
            "sender.mss: bad size 'big': expected bytes, or a number and k, M or G, binary (K, KiB, KB alike), e.g. 8k = 8192");
  EXPECT_EQ(set_field(c, "app.transmitter.writes", Value{std::string("8k")}).error().message(),
            "app.transmitter.writes: expected an integer, got a string");
  EXPECT_EQ(set_field(c, "sender.mss", Value{std::int64_t{1} << 40}).error().message(),
            "sender.mss: integer 1099511627776 out of range");
  EXPECT_EQ(set_field(c, "sender.nagle", Value{std::string("sometimes")}).error().message(),
            "sender.nagle: unknown value \"sometimes\" (expected one of: off, classic, minshall)");
  EXPECT_EQ(set_field(c, "link.prop_delay", Value{std::int64_t{5}}).error().message(),
            "link.prop_delay: expected a duration string like \"200ms\", got a integer");
  EXPECT_EQ(set_field(c, "app.receiver.read_wakeup", Value{std::string("15us 2us")}).error().message(),
            "app.receiver.read_wakeup: \"15us 2us\" at column 6: expected \"+\" or the end");
  const std::string q = "app.receiver.read_late_quantiles";
  EXPECT_EQ(set_field(c, q, Value{std::string("220us,,1ms")}).error().message().substr(0, q.size() + 9), q + ": item 2:");
  EXPECT_EQ(set_field(c, q, Value{std::string("220us,")}).error().message(), q + ": item 2: empty");
  EXPECT_EQ(set_field(c, q, Value{std::int64_t{5}}).error().message(),
            q + ": expected a string of durations like \"220us,2ms\", got a integer");
}

// The host costs are delays (sim/delay.h) under their old names: a plain duration is the same
// constant as before, a random one keeps its canonical text, and a bad one is one line naming
// the key.
TEST(Fields, HostCostsAreDelays) {
  const char* keys[] = {"sender.stack_latency", "receiver.stack_latency", "sender.per_segment_cost",
                        "receiver.per_segment_cost", "app.transmitter.send_cost", "app.receiver.read_cost",
                        "app.scp.sleep_quantum", "app.scp.event_wakeup"};
  for (const char* key : keys) {
    sim::ExperimentConfig c;
    EXPECT_EQ(find_field(key)->kind, FieldKind::delay) << key;
    ASSERT_TRUE(set_field(c, key, Value{std::string("60us")})) << key;
    EXPECT_EQ(*get_field(c, key), "60us") << key;
    ASSERT_TRUE(set_field(c, key, Value{std::string("1.5ms")})) << key;
    EXPECT_EQ(*get_field(c, key), "1500us") << key;
    ASSERT_TRUE(set_field(c, key, Value{std::string("10us+exp(5us) + 10ppm*(1ms)")})) << key;
    EXPECT_EQ(*get_field(c, key), "10us + exp(5us) + 10ppm * (1ms)") << key;
    const auto bad = set_field(c, key, Value{std::string("exp(5 us)")});
    ASSERT_FALSE(bad) << key;
    EXPECT_EQ(bad.error().message().substr(0, std::string(key).size() + 2), std::string(key) + ": ");
    EXPECT_EQ(bad.error().message().find('\n'), std::string::npos);
    EXPECT_EQ(set_field(c, key, Value{std::int64_t{5}}).error().message(),
              std::string(key) + ": expected a delay string like \"15us + exp(30us)\", got a integer");
  }
  sim::ExperimentConfig c;
  ASSERT_TRUE(set_field(c, "sender.stack_latency", Value{std::string("60us")}));
  EXPECT_EQ(c.sender.stack_latency, sim::Delay(Nanos::us(60)));
  EXPECT_EQ(c.sender.stack_latency, sim::ExperimentConfig{}.sender.stack_latency);
  ASSERT_TRUE(set_field(c, "app.transmitter.send_cost", Value{std::string("0")}));
  EXPECT_TRUE(c.app.transmitter.send_cost.none());
  EXPECT_EQ(*get_field(c, "app.transmitter.send_cost"), "none");
  EXPECT_EQ(set_field(c, "receiver.stack_latency", Value{std::string("60us 5us")}).error().message(),
            "receiver.stack_latency: \"60us 5us\" at column 6: expected \"+\" or the end");
}

// The old delay keys (one release): each sets its term of the new key, in the order the model
// drew them, whatever order they come in; they are not listed, and read back as they were set.
TEST(Fields, OldDelayKeysSetOneTermEach) {
  sim::ExperimentConfig c;
  EXPECT_TRUE(set_field(c, "app.receiver.read_late_quantiles", Value{std::string("220us,1.5ms,2s")}));
  EXPECT_EQ(*get_field(c, "app.receiver.read_late_quantiles"), "220us,1500us,2s");
  EXPECT_TRUE(set_field(c, "app.receiver.read_late_jitter", Value{std::string("250us")}));
  EXPECT_TRUE(set_field(c, "app.receiver.read_late_ppm", Value{std::int64_t{120}}));
  EXPECT_TRUE(set_field(c, "app.receiver.read_late_latency", Value{std::string("171us")}));
  EXPECT_TRUE(set_field(c, "app.receiver.read_jitter", Value{std::string("30us")}));
  EXPECT_TRUE(set_field(c, "app.receiver.read_quantiles", Value{std::string("4us,13us,50us")}));
  EXPECT_TRUE(set_field(c, "app.receiver.read_latency", Value{std::string("20us")}));
  EXPECT_EQ(*get_field(c, "app.receiver.read_wakeup"),
            "quantiles(4us, 13us, 50us) + 20us + exp(30us) + 120ppm * (quantiles(220us, 1500us, 2s) + 171us + "
            "exp(250us))");
  EXPECT_EQ(*get_field(c, "app.receiver.read_quantiles"), "4us,13us,50us");
  EXPECT_EQ(*get_field(c, "app.receiver.read_late_ppm"), "120");
  EXPECT_TRUE(set_field(c, "app.receiver.read_late_quantiles", Value{std::string("none")}));
  EXPECT_TRUE(set_field(c, "app.receiver.read_jitter", Value{std::string("0us")}));
  EXPECT_EQ(*get_field(c, "app.receiver.read_wakeup"),
            "quantiles(4us, 13us, 50us) + 20us + 120ppm * (171us + exp(250us))");
  EXPECT_TRUE(set_field(c, "app.transmitter.wakeup_jitter", Value{std::string("50us")}));
  EXPECT_EQ(*get_field(c, "app.transmitter.wakeup"), "200us + uniform(50us)");
  EXPECT_TRUE(set_field(c, "link.shaper_wakeup_quantiles", Value{std::string("0us,5us")}));
  EXPECT_EQ(*get_field(c, "link.shaper_lateness"), "quantiles(0ns, 5us)");
  EXPECT_TRUE(set_field(c, "link.shaper_wakeup_trace", Value{std::string("0us,19us,1ms")}));
  EXPECT_EQ(*get_field(c, "link.data_lateness"), "trace(0ns, 19us, 1ms)");
  EXPECT_EQ(*get_field(c, "link.shaper_wakeup_trace"), "0ns,19us,1ms");
  const FieldInfo* old = find_field("app.receiver.read_jitter");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->replaced_by, "app.receiver.read_wakeup");
  for (const FieldInfo& f : fields()) EXPECT_TRUE(f.replaced_by.empty()) << f.path;
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

TEST(Fields, SizesTakeTheOneGrammar) {
  sim::ExperimentConfig c;
  ASSERT_TRUE(set_field(c, "app.transmitter.write_len", Value{std::string("16k")}));
  EXPECT_EQ(c.app.transmitter.write_len, 16384);
  ASSERT_TRUE(set_field(c, "sender.send_buffer.size", Value{std::int64_t{12288}}));
  EXPECT_EQ(c.sender.send_buffer.size, 12288);
  EXPECT_EQ(*get_field(c, "sender.send_buffer.size"), "12k");
  EXPECT_FALSE(set_field(c, "link.mtu", Value{std::string("4G")}));  // beyond int32
}

// SO_SNDBUF "unset": dynamic send buffering (sim/ideal_send_backlog.h); a size ends it.
TEST(Fields, SendBufferSizeUnset) {
  sim::ExperimentConfig c;
  c.sender.send_buffer.kind = sim::SendBufferKind::afd;
  ASSERT_TRUE(set_field(c, "sender.send_buffer.size", Value{std::string("unset")}));
  EXPECT_TRUE(c.sender.send_buffer.unset);
  EXPECT_EQ(c.sender.send_buffer.size, sim::kCygwinUnsetWmem);
  EXPECT_EQ(*get_field(c, "sender.send_buffer.size"), "unset");
  EXPECT_TRUE(sim::validate(c).has_value());
  ASSERT_TRUE(set_field(c, "sender.send_buffer.size", Value{std::string("64k")}));
  EXPECT_FALSE(c.sender.send_buffer.unset);
  EXPECT_EQ(*get_field(c, "sender.send_buffer.size"), "64k");
  const auto bad = set_field(c, "sender.send_buffer.size", Value{std::string("unsett")});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("\"unset\""), std::string::npos) << bad.error().message();
  // Only Winsock (afd) has dynamic send buffering.
  ASSERT_TRUE(set_field(c, "receiver.send_buffer.size", Value{std::string("unset")}));
  c.receiver.send_buffer.kind = sim::SendBufferKind::bsd;
  ASSERT_FALSE(sim::validate(c).has_value());
  EXPECT_NE(sim::validate(c).error().message().find("send_buffer.kind = afd"), std::string::npos);
}

// Every key's default reads back in its own grammar and sets the same value again.
TEST(Fields, DefaultsRoundTrip) {
  const sim::ExperimentConfig defaults;
  for (const FieldInfo& f : fields()) {
    EXPECT_FALSE(f.default_value.empty()) << f.path;
    EXPECT_EQ(*get_field(defaults, f.path), f.default_value) << f.path;
    sim::ExperimentConfig c;
    Value v = f.default_value;
    if (f.kind == FieldKind::boolean) v = f.default_value == "true";
    if (f.kind == FieldKind::integer) v = std::stoll(f.default_value);
    ASSERT_TRUE(set_field(c, f.path, v)) << f.path << " = " << f.default_value;
    EXPECT_EQ(*get_field(c, f.path), f.default_value) << f.path;
  }
  EXPECT_EQ(find_field("link.rate")->default_value, "100mbit");
  EXPECT_EQ(find_field("receiver.ack.delack_timeout")->default_value, "200ms");
  EXPECT_EQ(find_field("sender.send_buffer.size")->default_value, "8k");
  EXPECT_NE(find_field("link.prop_delay")->description.find("one-way"), std::string::npos);
  EXPECT_EQ(find_field("no.such"), nullptr);
  EXPECT_FALSE(get_field(defaults, "no.such"));
}

TEST(Fields, ProfileKeysAreListed) {
  std::set<std::string> keys;
  for (const FieldInfo& f : profile_keys()) keys.insert(f.path);
  EXPECT_EQ(keys, (std::set<std::string>{"sender.profile", "receiver.profile", "link.preset"}));
  EXPECT_NE(profile_keys()[0].type.find("openbsd-3.9"), std::string::npos);
}

}  // namespace
}  // namespace ackstall::scenario
