// `ackstall sim --sweep`: CSV/JSON-lines rows per cell, shards that merge to the unsharded
// result, maps, --show-config, --list-keys, --defaults, --stall-threshold, plot formats and
// one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ackstall/scenario/fields.h"
#include "cli_runner.h"
#include "temp_dir.h"

namespace ackstall::tools {
namespace {

namespace fs = std::filesystem;

std::string example(const std::string& rel) { return std::string(ACKSTALL_SOURCE_DIR) + "/examples/" + rel; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

const std::vector<std::string> kSweep = {
    "sim",     example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=20",
    "--sweep", "sender.send_buffer.size=4k..16k:x2", "--sweep", "app.transmitter.chunking=none,seed"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

TEST(SimSweep, CsvHasOneRowPerCellAndAColumnPerKey) {
  const TempDir dir;
  const auto r = run_ackstall(with(kSweep, {"--csv", (dir / "m.csv").string(), "-j", "2"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = lines(slurp(dir / "m.csv"));
  ASSERT_EQ(rows.size(), 1u + 3 * 2);
  EXPECT_EQ(rows[0].rfind("cell,sender.send_buffer.size,app.transmitter.chunking,goodput_mib_s,", 0), 0u);
  for (const char* col : {"delayed_acks", "delayed_ack_s", "nagle_hold_s", "quota_wait_s", "events"})
    EXPECT_NE(rows[0].find(col), std::string::npos) << col;
  EXPECT_EQ(rows[1].rfind("0,4k,none,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[6].rfind("5,16k,seed,", 0), 0u) << rows[6];
  // The seed's quota (8k) with 8k writes stalls unchunked, the seed's chunks do not.
  const auto goodput = [&](std::size_t row) {  // cell, size, chunking, goodput_mib_s
    std::istringstream in(rows[row]);
    std::string field;
    for (int i = 0; i < 4; ++i) std::getline(in, field, ',');
    return std::stod(field);
  };
  EXPECT_LT(goodput(3), 1.0) << rows[3];
  EXPECT_GT(goodput(4), 5.0) << rows[4];
  // Text on stdout as well (the CSV went to a file).
  EXPECT_NE(r.out.find("MiB/s"), std::string::npos);
}

TEST(SimSweep, ShardsMergeToTheUnshardedRows) {
  const TempDir dir;
  const auto whole = run_ackstall(with(kSweep, {"--csv", "-"}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  std::vector<std::string> merged;
  for (int i = 1; i <= 4; ++i) {
    const auto part = run_ackstall(with(kSweep, {"--csv", "-", "--shard", std::to_string(i) + "/4", "-j", "1"}));
    ASSERT_EQ(part.code, 0) << part.err;
    auto rows = lines(part.out);
    if (merged.empty()) merged.push_back(rows[0]);
    EXPECT_EQ(rows[0], merged[0]);
    merged.insert(merged.end(), rows.begin() + 1, rows.end());
  }
  std::sort(merged.begin() + 1, merged.end(), [](const std::string& a, const std::string& b) {
    return std::stoull(a) < std::stoull(b);
  });
  EXPECT_EQ(merged, lines(whole.out));
}

TEST(SimSweep, JsonLinesNameTheKeys) {
  const auto r = run_ackstall(with(kSweep, {"--json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 6u);
  const auto j = nlohmann::json::parse(rows[5]);
  EXPECT_EQ(j["cell"], 5);
  EXPECT_EQ(j["keys"]["sender.send_buffer.size"], "16k");
  EXPECT_EQ(j["keys"]["app.transmitter.chunking"], "seed");
  EXPECT_TRUE(j["stalls"].contains("delayed-ack"));
  EXPECT_GT(j["events"].get<int>(), 0);
}

TEST(SimSweep, MapsAreDrawnInTheFormatOfTheExtension) {
  if (!have("gnuplot")) GTEST_SKIP() << "SKIP: gnuplot not installed (Debian gnuplot-nox)";
  const TempDir dir;
  // One key: a line; two with a short second: a line per value; two: a heatmap; three: panels.
  for (const char* name : {"line.svg", "series.png", "heat.png", "multi.pdf"}) {
    const std::string n = name;
    std::vector<std::string> args = {"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=10",
                                     "--sweep", "app.transmitter.write_len=4k,8k,16k"};
    if (n == "series.png") args = with(args, {"--sweep", "app.transmitter.chunking=none,seed,robust"});
    if (n == "heat.png") args = with(args, {"--sweep", "sender.send_buffer.size=1k..64k:x2"});
    if (n == "multi.pdf")
      args = with(args, {"--sweep", "sender.send_buffer.size=4k,8k", "--sweep", "app.transmitter.chunking=none,seed"});
    const auto r = run_ackstall(with(args, {"--plot", (dir / name).string()}));
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const std::string head = slurp(dir / name).substr(0, 8);
    const std::string expected = n == "line.svg" ? "<?xml" : n == "multi.pdf" ? "%PDF" : "\x89PNG";
    EXPECT_EQ(head.substr(0, expected.size()), expected) << name;
  }
}

TEST(SimSweep, BadInputIsOneLine) {
  const TempDir dir;
  expect_one_line_error(run_ackstall(with(kSweep, {"--sweep", "app.transmitter.chunking=seed"})), 2, "swept twice");
  expect_one_line_error(run_ackstall({"sim", example("seed/02-unpatched.toml"), "--sweep", "nope=1"}), 2,
                        "nope: unknown key");
  expect_one_line_error(run_ackstall(with(kSweep, {"--shard", "5/4"})), 2, "--shard 5/4");
  expect_one_line_error(run_ackstall({"sim", example("seed/02-unpatched.toml"), "--shard", "1/2"}), 2,
                        "need --sweep");
  expect_one_line_error(run_ackstall(with(kSweep, {"--plot", (dir / "x.gif").string()})), 2, "unknown plot format");
  expect_one_line_error(run_ackstall(with(kSweep, {"--csv", (dir / "no/such/dir.csv").string()})), 1, "--csv");
  expect_one_line_error(
      run_ackstall(with(kSweep, {"--sweep", "app.transmitter.writes=1,2", "--sweep", "link.mtu=1500,9000",
                                 "--plot", (dir / "m.png").string()})),
      2, "1 to 3 swept keys");
  // A cell the simulator refuses names the cell and its values.
  expect_one_line_error(run_ackstall({"sim", example("seed/02-unpatched.toml"), "--sweep", "link.mtu=1500,20"}), 2,
                        "sweep cell 1 (link.mtu=20)");
}

// A map file's [sweep] axes run without --sweep; --sweep replaces the axis of the same key.
TEST(SimSweep, MapFilesCarryTheirAxes) {
  const TempDir dir;
  {
    std::ofstream f(dir / "m.toml");
    f << "[app.transmitter]\nwrites = 10\n[sweep]\naxes = [\"app.transmitter.write_len=4k,8k\", "
         "\"app.transmitter.chunking=none,seed\"]\n";
  }
  const auto r = run_ackstall({"sim", (dir / "m.toml").string(), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].rfind("cell,app.transmitter.write_len,app.transmitter.chunking,", 0), 0u);
  const auto replaced = run_ackstall({"sim", (dir / "m.toml").string(), "--csv", "-", "--sweep",
                                      "app.transmitter.chunking=cygwin"});
  ASSERT_EQ(replaced.code, 0) << replaced.err;
  rows = lines(replaced.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].rfind("1,8k,cygwin,", 0), 0u) << rows[2];
  // Every shipped map loads and names valid axes (--show-config does not run them).
  for (const auto& e : fs::directory_iterator(std::string(ACKSTALL_SOURCE_DIR) + "/examples/maps")) {
    const auto c = run_ackstall({"sim", e.path().string(), "--sweep", "app.transmitter.writes=2", "--shard", "1/50",
                                 "--csv", (dir / "x.csv").string()});
    EXPECT_EQ(c.code, 0) << e.path() << ": " << c.err;
  }
}

TEST(SimKeys, ListKeysShowsDefaultsGrammarAndProfileKeys) {
  const auto r = run_ackstall({"sim", "--list-keys"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"sender.profile", "receiver.profile", "link.preset", "one-way", "100mbit", "200ms",
                        "e.g. 8k", "e.g. 200ms", "e.g. 100mbit", "stall_threshold"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  const auto j = run_ackstall({"sim", "--list-keys", "--json"});
  ASSERT_EQ(j.code, 0);
  const auto keys = nlohmann::json::parse(j.out);
  bool found = false;
  for (const auto& k : keys)
    if (k["key"] == "sender.send_buffer.size") found = k["default"] == "8k" && k["type"] == "size or \"unset\"";
  EXPECT_TRUE(found);
}

TEST(SimKeys, ShowConfigNamesEachValuesOrigin) {
  const auto r = run_ackstall({"sim", example("seed/03-unpatched-ackonpush.toml"), "--set",
                               "app.transmitter.writes=7", "--show-config", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, std::pair<std::string, std::string>> keys;
  for (const auto& k : nlohmann::json::parse(r.out)) keys[k["key"]] = {k["value"], k["origin"]};
  EXPECT_EQ(keys.at("app.transmitter.writes"), std::make_pair(std::string("7"), std::string("--set")));
  EXPECT_EQ(keys.at("receiver.ack.ack_on_push"), std::make_pair(std::string("true"), std::string("file")));
  EXPECT_EQ(keys.at("link.rate").second, "default");
  EXPECT_EQ(keys.size(), scenario::fields().size() + keys.count("sender.profile") +
                             keys.count("receiver.profile") + keys.count("link.preset"));
}

TEST(SimDefaults, RunWithoutAFileOnlyWhenAskedTo) {
  expect_one_line_error(run_ackstall({"sim", "--set", "app.transmitter.writes=5"}), 2, "--defaults");
  const auto r = run_ackstall({"sim", "--defaults", "--set", "app.transmitter.writes=5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "(defaults)");
  EXPECT_EQ(j["bytes_delivered"], 5 * 8192);
  expect_one_line_error(run_ackstall({"sim", "--defaults", example("seed/02-unpatched.toml")}), 2, "not both");
}

TEST(SimStalls, ThresholdSeparatesStallsFromShortWaits) {
  // The seed's patched run waits on its quota briefly many times: none of it is a stall.
  const auto healthy = run_ackstall({"sim", example("seed/07-patched-defaults.toml"), "--set",
                                     "app.transmitter.writes=200", "--json"});
  ASSERT_EQ(healthy.code, 0) << healthy.err;
  const auto h = nlohmann::json::parse(healthy.out);
  EXPECT_EQ(h["stalls"]["quota-wait"]["count"], 0);
  EXPECT_GT(h["short_waits"]["quota-wait"]["count"].get<int>(), 100);
  // The unpatched run's 200 ms waits are stalls at 20 ms, short waits at a 1 s threshold.
  const auto at = [](const char* threshold) {
    const auto r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=20",
                                 "--stall-threshold", threshold, "--json"});
    return nlohmann::json::parse(r.out)["stalls"]["delayed-ack"]["count"].get<int>();
  };
  EXPECT_GE(at("20ms"), 19);
  EXPECT_EQ(at("1s"), 0);
  expect_one_line_error(run_ackstall({"sim", example("seed/02-unpatched.toml"), "--stall-threshold", "soon"}), 2,
                        "--stall-threshold");
}

TEST(SimSeedRow, SeedFigureOnlyWhileTheRowHolds) {
  const auto plain = run_ackstall({"sim", example("seed/02-unpatched.toml")});
  EXPECT_NE(plain.out.find("seed measured"), std::string::npos);
  const auto changed = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=9"});
  EXPECT_EQ(changed.out.find("seed measured"), std::string::npos);
  EXPECT_NE(changed.out.find("not the seed's row"), std::string::npos);
}

TEST(SimPlot, FormatWindowAndGnuplotErrors) {
  if (!have("gnuplot")) GTEST_SKIP() << "SKIP: gnuplot not installed (Debian gnuplot-nox)";
  const TempDir dir;
  const std::vector<std::string> run = {"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=10"};
  const auto svg = run_ackstall(with(run, {"--plot", (dir / "t.svg").string(), "--plot-window", "0.2s..0.6s"}));
  ASSERT_EQ(svg.code, 0) << svg.err;
  EXPECT_NE(slurp(dir / "t.svg").find("<svg"), std::string::npos);
  expect_one_line_error(run_ackstall(with(run, {"--plot", (dir / "t.png").string(), "--plot-window", "1s..0.5s"})),
                        2, "--plot-window");
  expect_one_line_error(run_ackstall(with(run, {"--plot-window", "0s..1s"})), 2, "needs --plot");
  expect_one_line_error(run_ackstall(with(run, {"--plot", (dir / "missing/t.png").string()})), 2, "does not exist");
  expect_one_line_error(run_ackstall(with(run, {"--plot", (dir / "t.jpeg").string()})), 2, "unknown plot format");
}

}  // namespace
}  // namespace ackstall::tools
