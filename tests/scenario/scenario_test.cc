#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <vector>

namespace ackstall::scenario {
namespace {

constexpr const char* kDoc = R"(
[scenario]
name = "unpatched, ackonpush"
seed_row = "unpatched, receiver ackonpush=1"
seed_mib_s = 4.5

[link]
preset = "ethernet-100baset"

[sender]
profile = "winxp"
send_buffer.size = 8192

[receiver]
ack.ack_on_push = true
profile = "openbsd-3.9"    # applied before the key above, whatever the order

[app.transmitter]
writes = 1000
chunking = "none"
)";

TEST(Scenario, ParsesMetadataProfilesAndKeys) {
  auto s = parse_scenario(kDoc, "t.toml");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->name, "unpatched, ackonpush");
  EXPECT_EQ(s->seed_mib_s, 4.5);
  EXPECT_TRUE(s->config.receiver.ack.ack_on_push);
  EXPECT_EQ(s->config.receiver.ack.kind, sim::AckPolicyKind::openbsd);
  EXPECT_EQ(s->config.app.transmitter.writes, 1000);
}

TEST(Scenario, SetOverridesFileAndProfiles) {
  const std::vector<std::string> sets = {"app.transmitter.writes=5", "receiver.profile=linux",
                                         "app.transmitter.chunking=seed",
                                         "receiver.ack.delack_timeout=\"100ms\""};
  auto s = parse_scenario(kDoc, "t.toml", sets);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->config.app.transmitter.writes, 5);
  EXPECT_EQ(s->config.receiver.ack.kind, sim::AckPolicyKind::linux);
  EXPECT_TRUE(s->config.receiver.ack.ack_on_push);  // file key re-applied after the profile
  EXPECT_EQ(s->config.app.transmitter.chunking, core::PolicyKind::seed);
  EXPECT_EQ(s->config.receiver.ack.delack_timeout, sim::Nanos::ms(100));
}

// The old delay keys load for one release: one warning line per new key, naming it and the value
// to write, and the very run the new key gives.
TEST(Scenario, OldDelayKeysWarnAndRunAsTheNewKey) {
  constexpr const char* kOld = R"(
[receiver]
profile = "linux"
[app.transmitter]
writes = 200
chunking = "seed"
wakeup_jitter = "40us"
[app.receiver]
read_latency = "20us"
read_jitter = "30us"
read_late_ppm = 50000
read_late_latency = "300us"
)";
  constexpr const char* kNew = R"toml(
[receiver]
profile = "linux"
[app.transmitter]
writes = 200
chunking = "seed"
wakeup = "200us + uniform(40us)"
[app.receiver]
read_wakeup = "20us + exp(30us) + 50000ppm * (300us)"
)toml";
  auto old = parse_scenario(kOld, "old.toml");
  auto now = parse_scenario(kNew, "new.toml");
  ASSERT_TRUE(old) << old.error();
  ASSERT_TRUE(now) << now.error();
  EXPECT_TRUE(now->warnings.empty());
  ASSERT_EQ(old->warnings.size(), 2u);
  EXPECT_EQ(old->warnings[0],
            "old.toml: app.receiver.read_jitter, app.receiver.read_late_latency, app.receiver.read_late_ppm, "
            "app.receiver.read_latency: old names; write app.receiver.read_wakeup = \"20us + exp(30us) + 50000ppm "
            "* (300us)\" (old names go in the next release)");
  EXPECT_NE(old->warnings[1].find("app.transmitter.wakeup = \"200us + uniform(40us)\""), std::string::npos);
  EXPECT_EQ(old->config.app.receiver.read_wakeup, now->config.app.receiver.read_wakeup);
  EXPECT_EQ(old->config.app.transmitter.wakeup, now->config.app.transmitter.wakeup);
  const auto a = sim::run_experiment(old->config);
  const auto b = sim::run_experiment(now->config);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->events, b->events);
  EXPECT_EQ(a->duration, b->duration);
}

// --show-config's origins: default, profile, file, --set; the profile key itself is listed.
TEST(Scenario, EveryKeyKnowsWhereItCameFrom) {
  auto s = parse_scenario(kDoc, "t.toml", std::vector<std::string>{"app.transmitter.writes=5"});
  ASSERT_TRUE(s) << s.error();
  std::map<std::string, ResolvedKey> keys;
  for (const ResolvedKey& k : resolve_keys(*s)) keys[k.path] = k;
  EXPECT_EQ(keys.at("app.transmitter.writes").origin, "--set");
  EXPECT_EQ(keys.at("app.transmitter.writes").value, "5");
  EXPECT_EQ(keys.at("receiver.ack.ack_on_push").origin, "file");
  EXPECT_EQ(keys.at("sender.send_buffer.size").origin, "file");
  EXPECT_EQ(keys.at("sender.send_buffer.size").value, "8k");
  EXPECT_EQ(keys.at("app.transmitter.write_len").origin, "default");
  EXPECT_EQ(keys.at("receiver.profile").value, "openbsd-3.9");
  EXPECT_EQ(keys.at("receiver.profile").origin, "file");
  EXPECT_EQ(s->overrides, (std::vector<std::string>{"app.transmitter.writes"}));
  // A profile that changes a key from its default is that key's origin.
  auto linux_rx = parse_scenario("[receiver]\nprofile = \"linux\"\n", "l.toml");
  ASSERT_TRUE(linux_rx);
  std::map<std::string, ResolvedKey> lk;
  for (const ResolvedKey& k : resolve_keys(*linux_rx)) lk[k.path] = k;
  EXPECT_EQ(lk.at("receiver.ack.kind").origin, "profile linux");
  EXPECT_EQ(lk.at("sender.ack.kind").origin, "default");
  EXPECT_TRUE(linux_rx->overrides.empty());
}

void expect_error(std::string_view doc, std::string_view expected,
                  std::vector<std::string> sets = {}) {
  auto s = parse_scenario(doc, "bad.toml", sets);
  ASSERT_FALSE(s) << doc;
  EXPECT_EQ(s.error().message().find('\n'), std::string::npos) << s.error();
  EXPECT_NE(s.error().message().find(expected), std::string::npos) << s.error();
}

TEST(Scenario, ErrorsAreOneLineNamingTheKey) {
  expect_error("[receiver]\nack.kind = \"solaris\"\n", "bad.toml: receiver.ack.kind: unknown value \"solaris\"");
  expect_error("[receiver]\nprofile = \"solaris\"\n", "receiver.profile: unknown profile \"solaris\" (one of: winxp,");
  expect_error("[link]\npreset = \"token-ring\"\n", "link.preset: unknown link preset");
  expect_error("[sender]\nmss = true\n", "sender.mss: expected a size like 8192 or \"8k\", got a boolean");
  expect_error("[app.transmitter]\nwrites = \"8k\"\n", "app.transmitter.writes: expected an integer, got a string");
  expect_error("[sender]\nmss = 20\n", "sender.mss: must be 0 (from MTU) or >= 64");
  expect_error("[link]\nmtu = 70000\n", "link.mtu: must be in [104, 65535]");
  expect_error("[app.transmitter]\nwrite_len = 0\n", "app.transmitter.write_len");
  expect_error("colour = \"blue\"\n", "colour: unknown key");
  expect_error("[scenario]\nauthor = \"x\"\n", "scenario.author: unknown key");
  expect_error("[link]\nrate = [1, 2]\n", "link.rate (line 2): arrays, dates and times");
  expect_error("[link\nrate = 1\n", "bad.toml: TOML syntax error (line 1)");
  expect_error("", "override x: expected key=value", {"x"});
  expect_error("[sweep]\nkeys = 1\n", "sweep.keys (line 2): unknown key (sweep.axes only)");
  expect_error("[sweep]\naxes = [1]\n", "sweep.axes (line 2): expected \"KEY=VALUES\" strings");
  expect_error("sweep = 3\n", "sweep (line 1): expected a table");
  expect_error("", "override link.mtu: bad size 'big'", {"link.mtu=big"});
  expect_error("", "override nope.key: unknown key", {"nope.key=1"});
}

// The library names an override by its source ("override KEY"), never a command-line flag:
// the flag is the CLI's (include/ackstall/scenario/scenario.h).
TEST(Scenario, OverrideErrorsNameNoFlag) {
  for (const std::string& set : {std::string("x"), std::string("link.mtu=big"), std::string("nope.key=1")}) {
    const std::vector<std::string> sets = {set};
    auto s = parse_scenario("", "bad.toml", sets);
    ASSERT_FALSE(s) << set;
    EXPECT_EQ(s.error().message().find("--"), std::string::npos) << s.error();
    EXPECT_NE(s.error().message().find("override "), std::string::npos) << s.error();
  }
}

// scenario.include: an in-memory reader stands in for the files.
IncludeReader files(std::map<std::string, std::string> texts) {
  return [texts = std::move(texts)](const std::string& path) -> core::Result<std::string> {
    const auto it = texts.find(path);
    if (it == texts.end()) return core::fail("cannot open " + path);
    return it->second;
  };
}

TEST(Scenario, IncludedKeysComeFirstAndTheFileOverridesThem) {
  const auto reader = files({{"a.toml", "[app.transmitter]\nwrites = 7\nwrite_len = 1000\n[receiver]\nprofile = \"linux\"\n"},
                             {"b.toml", "[app.transmitter]\nwrite_len = 2000\n"}});
  const std::vector<std::string> sets = {"app.transmitter.writes=9"};
  auto s = parse_scenario("[scenario]\ninclude = [\"a.toml\", \"b.toml\"]\n[app.transmitter]\nwrite_len = 3000\n"
                          "[receiver]\nprofile = \"freebsd-6\"\n",
                          "t.toml", {}, reader);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->config.app.transmitter.writes, 7);
  EXPECT_EQ(s->config.app.transmitter.write_len, 3000);  // the file over both includes
  EXPECT_EQ(s->profiles.at("receiver.profile"), "freebsd-6");
  std::map<std::string, ResolvedKey> keys;
  for (const ResolvedKey& k : resolve_keys(*s)) keys[k.path] = k;
  EXPECT_EQ(keys.at("app.transmitter.writes").origin, "include a.toml");
  EXPECT_EQ(keys.at("app.transmitter.write_len").origin, "file");
  // One path as a string; later includes override earlier ones; --set overrides all.
  auto one = parse_scenario("[scenario]\ninclude = \"a.toml\"\nname = \"n\"\n", "t.toml", sets, reader);
  ASSERT_TRUE(one) << one.error();
  EXPECT_EQ(one->config.app.transmitter.writes, 9);
  EXPECT_EQ(one->name, "n");
  auto two = parse_scenario("[scenario]\ninclude = [\"a.toml\", \"b.toml\"]\n", "t.toml", {}, reader);
  ASSERT_TRUE(two) << two.error();
  EXPECT_EQ(two->config.app.transmitter.write_len, 2000);
}

TEST(Scenario, IncludeErrorsAreOneLineNamingTheIncludedFile) {
  const auto reader = files({{"bad.toml", "[sender]\nmss = true\n"},
                             {"meta.toml", "[scenario]\nname = \"x\"\n"},
                             {"sweep.toml", "[sweep]\naxes = []\n"},
                             {"syntax.toml", "[link\n"}});
  auto err = [&](const std::string& doc) {
    auto s = parse_scenario(doc, "t.toml", {}, reader);
    EXPECT_FALSE(s) << doc;
    return s ? std::string() : s.error().message();
  };
  EXPECT_EQ(err("[scenario]\ninclude = \"bad.toml\"\n"), "t.toml: include bad.toml: sender.mss: expected a size like 8192 or \"8k\", got a boolean");
  EXPECT_EQ(err("[scenario]\ninclude = \"gone.toml\"\n"), "t.toml: include gone.toml: cannot open gone.toml");
  EXPECT_NE(err("[scenario]\ninclude = \"meta.toml\"\n").find("include meta.toml: an included file holds keys only; [scenario]"), std::string::npos);
  EXPECT_NE(err("[scenario]\ninclude = \"sweep.toml\"\n").find("[sweep] belongs in the including file"), std::string::npos);
  EXPECT_NE(err("[scenario]\ninclude = \"syntax.toml\"\n").find("t.toml: include syntax.toml: TOML syntax error (line 1)"), std::string::npos);
  EXPECT_NE(err("[scenario]\ninclude = 3\n").find("scenario.include (line 2): expected a path or an array of paths"), std::string::npos);
  EXPECT_NE(err("[scenario]\ninclude = [\"a\", 3]\n").find("scenario.include (line 2): expected a path"), std::string::npos);
  EXPECT_NE(err("[scenario]\ninclude = \"\"\n").find("scenario.include (line 2): an empty path"), std::string::npos);
  // A value the run refuses as a whole (sim::validate) is named by the file that set it.
  const auto bounds = files({{"neg.toml", "[app.transmitter]\nwrites = -3\n"}});
  auto neg = parse_scenario("[scenario]\ninclude = \"neg.toml\"\n", "t.toml", {}, bounds);
  ASSERT_FALSE(neg);
  EXPECT_TRUE(neg.error().message().starts_with("t.toml: include neg.toml: app.transmitter.writes:")) << neg.error();
  // So is an old key's warning.
  const auto old = files({{"old.toml", "[app.receiver]\nread_latency = \"30us\"\n"}});
  auto warned = parse_scenario("[scenario]\ninclude = \"old.toml\"\n", "t.toml", {}, old);
  ASSERT_TRUE(warned) << warned.error();
  ASSERT_EQ(warned->warnings.size(), 1u);
  EXPECT_TRUE(warned->warnings[0].starts_with("t.toml: include old.toml: app.receiver.read_latency: an old name; write app.receiver.read_wakeup")) << warned->warnings[0];
  // An override cannot include: only a file does.
  auto set = parse_scenario("", "t.toml", std::vector<std::string>{"scenario.include=x.toml"});
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().message().find("override scenario.include: only a scenario file includes others"), std::string::npos)
      << set.error();
  // Text that is not a file has no directory to resolve a path against.
  auto text = parse_scenario("[scenario]\ninclude = \"bad.toml\"\n", "t.toml");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "t.toml: include bad.toml: only a scenario read from a file can include another");
}

// A file's includes resolve against its own directory, not the working directory.
TEST(Scenario, IncludesResolveBesideTheScenarioFile) {
  auto s = load_scenario_file(std::string(ACKSTALL_SOURCE_DIR) + "/examples/lab/pingpong-l8192.toml");
  ASSERT_TRUE(s) << s.error();
  std::map<std::string, ResolvedKey> keys;
  for (const ResolvedKey& k : resolve_keys(*s)) keys[k.path] = k;
  EXPECT_TRUE(keys.at("app.receiver.read_wakeup").origin.starts_with("include include/reader-l8192.toml")) << keys.at("app.receiver.read_wakeup").origin;
  EXPECT_NE(keys.at("app.receiver.read_wakeup").value.find("ppm"), std::string::npos);
}

TEST(Scenario, MissingFile) {
  auto s = load_scenario_file("/nonexistent/x.toml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "/nonexistent/x.toml: cannot open scenario file");
}

// A directory opens as an empty stream on Linux: it is named, not run as an empty scenario.
TEST(Scenario, ADirectoryIsNotAScenarioNorAnInclude) {
  const std::string examples = std::string(ACKSTALL_SOURCE_DIR) + "/examples";
  auto s = load_scenario_file(examples);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), examples + ": a directory, not scenario file");
  auto inc = includes_beside(examples + "/lab/pingpong-l8192.toml")("include");
  ASSERT_FALSE(inc);
  EXPECT_EQ(inc.error().message(), examples + "/lab/include: a directory, not an included file");
}

TEST(Scenario, EveryExampleLoads) {
  const std::filesystem::path dir = std::filesystem::path(ACKSTALL_SOURCE_DIR) / "examples";
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    // include/ holds parts that examples include (scenario.include), not scenarios of their own
    if (e.path().extension() != ".toml" || e.path().parent_path().filename() == "include") continue;
    auto s = load_scenario_file(e.path().string());
    EXPECT_TRUE(s) << s.error();
    ++n;
  }
  EXPECT_GT(n, 0);
}

// A host cost takes a random delay in a scenario file: `send_cost = "exp(50us)"` gives a run of
// its own, the same for the same seed, another for another seed.
TEST(Scenario, RandomSendCostRunsDeterministicallyPerSeed) {
  constexpr std::string_view kRandom = R"toml(
# Short sends without Nagle into a large buffer: each send's CPU time paces the sender.
[sender]
nagle = "off"
send_buffer.size = 65536
[app.transmitter]
writes = 300
write_len = 64
send_cost = "exp(50us)"
)toml";
  const auto run = [&](std::span<const std::string> sets) {
    auto s = parse_scenario(kRandom, "t.toml", sets);
    EXPECT_TRUE(s) << s.error();
    return sim::run_experiment(s->config).value();
  };
  const sim::Summary a = run({}), b = run({});
  ASSERT_TRUE(a.completed);
  EXPECT_EQ(parse_scenario(kRandom, "t.toml")->config.app.transmitter.send_cost.to_string(), "exp(50us)");
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.events, b.events);
  const std::string seed2[] = {"seed=2"};
  EXPECT_NE(run(seed2).duration, a.duration);
  const std::string constant[] = {"app.transmitter.send_cost=\"50us\""};
  EXPECT_NE(run(constant).duration, a.duration);
}

// A host cost out of its range, or a random scp sleep that could be shorter than the model's
// floor: one line naming the key.
TEST(Scenario, BadHostCostNamesTheKey) {
  sim::ExperimentConfig c;
  c.receiver.stack_latency = sim::Delay::parse("exp(2000s)").value();
  EXPECT_EQ(sim::run_experiment(c).error().message(), "receiver.stack_latency: each term must be in [0, 1000s]");
  c = {};
  c.app.scp.sleep_quantum = sim::Delay::parse("exp(10ms)").value();
  const std::string e = sim::run_experiment(c).error().message();
  EXPECT_TRUE(e.starts_with("app.scp.sleep_quantum: ")) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  c.app.scp.sleep_quantum = sim::Delay::parse("5ms + exp(10ms)").value();
  EXPECT_TRUE(sim::validate(c));
  c.app.scp.sleep_quantum = sim::Delay{};
  EXPECT_TRUE(sim::run_experiment(c).error().message().starts_with("app.scp.sleep_quantum: must be > 0"));
}

}  // namespace
}  // namespace ackstall::scenario
