// ScenarioWriter: a typed configuration written through the key table (fields.h), read back by
// the loader to the same configuration, key by key.
#include "ackstall/scenario/writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ackstall/scenario/scenario.h"

namespace ackstall::scenario {
namespace {

// Every key of fields() has the same value in A and B (the first that differs, else "").
std::string first_difference(const sim::ExperimentConfig& a, const sim::ExperimentConfig& b) {
  for (const FieldInfo& f : fields()) {
    const auto x = get_field(a, f.path), y = get_field(b, f.path);
    if (!x || !y || *x != *y) return f.path + ": " + (x ? *x : "?") + " vs " + (y ? *y : "?");
  }
  return "";
}

// W's file, loaded.
sim::ExperimentConfig read_back(const ScenarioWriter& w) {
  const auto text = w.toml();
  EXPECT_TRUE(text) << text.error().message();
  if (!text) return {};
  auto s = parse_scenario(*text, "written");
  EXPECT_TRUE(s) << s.error().message() << "\n" << *text;
  return s ? s->config : sim::ExperimentConfig{};
}

// Values unlike the key's value in CFG, in its grammar, to try in turn: a value that differs and
// that sim::validate accepts is looked for among them.
std::vector<Value> other_values(const FieldInfo& f, const sim::ExperimentConfig& cfg) {
  const std::string now = *get_field(cfg, f.path);
  const auto value = *field_value(cfg, f.path);
  switch (f.kind) {
    case FieldKind::boolean: return {Value(now != "true")};
    case FieldKind::integer:
    case FieldKind::size: {
      const std::int64_t* i = std::get_if<std::int64_t>(&value);
      const std::int64_t v = i != nullptr ? *i : 0;
      return {Value(v + 1), Value(v * 2), Value(std::int64_t{1460}), Value(std::int64_t{100000})};
    }
    case FieldKind::duration: {
      const std::int64_t ns = *core::parse_duration_ns(now);
      return {Value(core::format_duration_ns(ns + 1'000'000)), Value(std::string("1ms")), Value(std::string("3s"))};
    }
    case FieldKind::rate: return {Value(std::string("10mbit")), Value(std::string("1gbit"))};
    case FieldKind::enumeration: {
      std::vector<Value> out;
      std::string names = f.type.substr(std::string_view("one of: ").size());
      for (const std::string_view n : core::split_list(names)) {
        std::string name(n.starts_with(' ') ? n.substr(1) : n);
        if (name != now) out.emplace_back(std::move(name));
      }
      return out;
    }
    case FieldKind::delay:
      return {Value(std::string("15us + exp(30us)")), Value(std::string("none")), Value(std::string("1ms"))};
    case FieldKind::durations: return {};
  }
  return {};
}

// CFG with key F set to a value unlike its own that sim::validate accepts, or nullopt.
std::optional<sim::ExperimentConfig> changed_alone(const FieldInfo& f, const sim::ExperimentConfig& cfg) {
  for (const Value& v : other_values(f, cfg)) {
    sim::ExperimentConfig c = cfg;
    if (!set_field(c, f.path, v) || !sim::validate(c) || *get_field(c, f.path) == *get_field(cfg, f.path)) continue;
    return c;
  }
  return std::nullopt;
}

// As changed_alone, or with another key changed first where F needs it (linux's ack_at_read
// needs a linux ACK policy).
std::optional<sim::ExperimentConfig> changed(const FieldInfo& f, const sim::ExperimentConfig& cfg) {
  if (auto c = changed_alone(f, cfg)) return c;
  for (const FieldInfo& g : fields()) {
    if (g.path == f.path) continue;
    if (const auto first = changed_alone(g, cfg))
      if (auto c = changed_alone(f, *first)) return c;
  }
  return std::nullopt;
}

// config -> TOML -> parse -> the same config, for every key in turn, over the defaults and over
// profiles (a key left at the profile's value is not written, and reads back as the profile's).
TEST(ScenarioWriter, EveryKeyRoundTrips) {
  for (const ScenarioProfiles& p : {ScenarioProfiles{}, ScenarioProfiles{"winxp", "linux", "ethernet-100baset"}}) {
    for (const FieldInfo& f : fields()) {
      auto w = ScenarioWriter::over(p);
      ASSERT_TRUE(w) << w.error().message();
      w->config().link.burst = 15000;  // a shaped link: its lateness keys apply (sim::validate)
      const auto c = changed(f, w->config());
      ASSERT_TRUE(c) << f.path << ": no other value the simulator accepts among the test's candidates";
      w->config() = *c;
      EXPECT_EQ(first_difference(read_back(*w), *c), "") << f.path << " over " << p.sender << "/" << p.receiver;
    }
  }
}

// All keys changed at once (each while the whole stays valid): one file carries them all.
TEST(ScenarioWriter, AllKeysAtOnceRoundTrip) {
  auto w = ScenarioWriter::over({});
  ASSERT_TRUE(w);
  w->config().link.burst = 15000;
  std::size_t moved = 0;
  for (const FieldInfo& f : fields()) {
    if (const auto c = changed(f, w->config())) {
      w->config() = *c;
      ++moved;
    }
  }
  EXPECT_GT(moved, fields().size() * 9 / 10);
  EXPECT_EQ(first_difference(read_back(*w), w->config()), "");
}

TEST(ScenarioWriter, WritesTheProfilesMetadataAndWhatDiffers) {
  auto w = ScenarioWriter::over({.sender = "winxp", .receiver = "openbsd-3.9", .link = {}});
  ASSERT_TRUE(w) << w.error().message();
  w->comment("emitted by a test");
  w->metadata().name = "from a \"capture\"";
  w->metadata().seed_mib_s = 0.5;
  w->config().sender.send_buffer.size = 16384;
  w->config().receiver.ack.delack_timeout = sim::Nanos::ms(150);
  w->config().link.rate_bps = 10'000'000;
  const auto text = w->toml();
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(text->rfind("# emitted by a test\n", 0), 0u) << *text;
  for (const char* line : {"profile = 'winxp'", "profile = 'openbsd-3.9'", "size = 16384", "delack_timeout = '150ms'",
                           "rate = '10mbit'", "seed_mib_s = 0.5"})
    EXPECT_NE(text->find(line), std::string::npos) << line << "\n" << *text;
  // A key at the profile's value, not carried, is left to the profile.
  EXPECT_EQ(text->find("nagle"), std::string::npos) << *text;
  auto s = parse_scenario(*text, "written");
  ASSERT_TRUE(s) << s.error().message() << "\n" << *text;
  EXPECT_EQ(s->name, "from a \"capture\"");
  EXPECT_EQ(s->seed_mib_s, 0.5);
  EXPECT_EQ(s->profiles.at("receiver.profile"), "openbsd-3.9");
  EXPECT_EQ(first_difference(s->config, w->config()), "");
}

// A carried member is written at the profile's value; a member is named by itself, not by text.
TEST(ScenarioWriter, ACarriedKeyIsWrittenAtTheProfilesValue) {
  auto w = ScenarioWriter::over({.sender = "winxp", .receiver = {}, .link = {}});
  ASSERT_TRUE(w);
  const sim::ExperimentConfig& c = w->config();
  ASSERT_FALSE(c.sender.ask_timestamps);  // winxp's
  w->carry(c.sender.ask_timestamps);
  w->carry(c.sender.send_buffer.size);
  w->carry(c.stall_threshold);
  const auto text = w->toml();
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("ask_timestamps = false"), std::string::npos) << *text;
  EXPECT_NE(text->find("size = 8192"), std::string::npos) << *text;
  EXPECT_NE(text->find("stall_threshold = '20ms'"), std::string::npos) << *text;
  EXPECT_EQ(field_of(c, c.sender.mss)->path, "sender.mss");
  EXPECT_EQ(field_of(c, c.receiver.ack.ack_on_push)->path, "receiver.ack.ack_on_push");
  EXPECT_EQ(field_of(c, c.sender.send_buffer.size)->path, "sender.send_buffer.size");
  // At the same address as its first member, the struct is no key; nor are the trace addresses.
  EXPECT_EQ(field_of(c, c.sender.send_buffer), nullptr);
  EXPECT_EQ(field_of(c, c.addressing.sender_port), nullptr);
}

// A key is named by its member, whatever its kind (fields.h: field_at).
TEST(ScenarioWriter, AMemberOfEachKindNamesItsKey) {
  const sim::ExperimentConfig c;
  const std::pair<const FieldInfo*, std::string_view> keys[] = {
      {field_of(c, c.link.queue_limit_packets), "link.queue_limit_packets"},   // integer
      {field_of(c, c.link.mtu), "link.mtu"},                                   // size
      {field_of(c, c.receiver.send_buffer.size), "receiver.send_buffer.size"},  // size or "unset"
      {field_of(c, c.app.scp.enabled), "app.scp.enabled"},                     // boolean
      {field_of(c, c.receiver.rto_min), "receiver.rto_min"},                   // duration
      {field_of(c, c.stall_threshold), "stall_threshold"},                     // duration (core::StallThreshold)
      {field_of(c, c.link.rate_bps), "link.rate"},                             // rate
      {field_of(c, c.receiver.ack.kind), "receiver.ack.kind"},                 // enumeration
      {field_of(c, c.app.transmitter.wakeup), "app.transmitter.wakeup"},       // delay
      {field_of(c, c.seed), "seed"},
  };
  for (const auto& [found, path] : keys) {
    ASSERT_NE(found, nullptr) << path;
    EXPECT_EQ(found->path, path);
  }
  // The same address as a key's member, another type: no key.
  EXPECT_EQ(field_of(c, c.link), nullptr);
  EXPECT_EQ(field_of(c, c.receiver.ack), nullptr);
}

TEST(ScenarioWriter, RefusesWhatTheLoaderWouldRefuse) {
  EXPECT_FALSE(ScenarioWriter::over({.sender = "winxq", .receiver = {}, .link = {}}));
  EXPECT_FALSE(ScenarioWriter::over({.sender = {}, .receiver = {}, .link = "ethernet-10"}));
  auto w = ScenarioWriter::over({});
  ASSERT_TRUE(w);
  w->config().sender.mss = 10;  // below 64: sim::validate refuses it
  const auto bad = w->toml();
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("sender.mss"), std::string::npos) << bad.error().message();
  w->config().sender.mss = 1460;
  w->carry(w->config().addressing.receiver_port);  // no key sets it
  EXPECT_FALSE(w->toml());
  // A seed past 2^63 - 1 is no TOML integer: the loader could not read it back.
  auto big = ScenarioWriter::over({});
  ASSERT_TRUE(big);
  big->config().seed = std::uint64_t{1} << 63;
  const auto too_big = big->toml();
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message().find("seed"), std::string::npos) << too_big.error().message();
}

// A host cost written as its canonical delay text reads back to the same delay.
TEST(ScenarioWriter, HostCostDelaysRoundTrip) {
  auto w = ScenarioWriter::over({});
  ASSERT_TRUE(w);
  ASSERT_TRUE(set_field(w->config(), "receiver.stack_latency", std::string("30us+exp(100us) + 500ppm*(2ms)")));
  w->config().app.receiver.read_cost = sim::Delay(sim::Nanos::us(3));
  const sim::ExperimentConfig back = read_back(*w);
  EXPECT_EQ(back.receiver.stack_latency, w->config().receiver.stack_latency);
  EXPECT_EQ(*get_field(back, "receiver.stack_latency"), "30us + exp(100us) + 500ppm * (2ms)");
  EXPECT_EQ(back.app.receiver.read_cost, sim::Delay(sim::Nanos::us(3)));
  EXPECT_EQ(back.sender.per_segment_cost, w->config().sender.per_segment_cost);  // none
}

}  // namespace
}  // namespace ackstall::scenario
