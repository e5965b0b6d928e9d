// ackstall scan on the lab capture corpus (tests/data/lab-captures/, recorded by
// bench/lab_capture_corpus.sh: real Linux transfers in the namespace lab, dumpcap pcapng at both
// ends, IPv4 and IPv6). Each capture's text report equals its golden report
// (<capture>.scan.txt); its stalls equal the truth recorded with it (manifest.json): the
// sender's own count of waits on its emulated quota and tshark's late ACKs at that end.
// Re-record the golden reports after an intended change: ACKSTALL_UPDATE_GOLDEN=1 ctest -R ScanCorpus
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "temp_dir.h"

namespace ackstall::tools {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() { return fs::path(ACKSTALL_SOURCE_DIR) / "tests" / "data" / "lab-captures"; }

std::vector<fs::path> captures() {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(corpus_dir())) {
    if (e.path().extension() == ".pcapng") v.push_back(e.path());
  }
  std::sort(v.begin(), v.end());
  return v;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The report with the capture's path as its file name (the golden does not depend on where the
// source tree is).
std::string report_of(const fs::path& capture) {
  const auto r = run_ackstall({"scan", capture.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string out = r.out;
  const std::string full = capture.string(), base = capture.filename().string();
  for (auto at = out.find(full); at != std::string::npos; at = out.find(full, at + base.size())) {
    out.replace(at, full.size(), base);
  }
  return out;
}

TEST(ScanCorpus, HoldsBothEndsOfEveryTransfer) {
  const auto manifest = nlohmann::json::parse(read_text(corpus_dir() / "manifest.json"));
  ASSERT_GE(manifest.size(), 9u);
  EXPECT_EQ(captures().size(), 2 * manifest.size());
  for (const auto& [name, _] : manifest.items()) {
    EXPECT_TRUE(fs::exists(corpus_dir() / (name + ".a.pcapng"))) << name;
    EXPECT_TRUE(fs::exists(corpus_dir() / (name + ".b.pcapng"))) << name;
  }
}

TEST(ScanCorpus, ReportsEqualTheGoldenOnes) {
  const bool update = std::getenv("ACKSTALL_UPDATE_GOLDEN") != nullptr;
  for (const auto& c : captures()) {
    SCOPED_TRACE(c.filename().string());
    const fs::path golden = fs::path(c).replace_extension(".scan.txt");
    const std::string report = report_of(c);
    if (update) {
      std::ofstream(golden, std::ios::binary) << report;
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << "no golden report: ACKSTALL_UPDATE_GOLDEN=1 ctest -R ScanCorpus";
    EXPECT_EQ(report, read_text(golden));
  }
}

TEST(ScanCorpus, StallsEqualTheSendersAndTsharksCounts) {
  const auto manifest = nlohmann::json::parse(read_text(corpus_dir() / "manifest.json"));
  int stalled = 0, v6 = 0;
  for (const auto& [name, truth] : manifest.items()) {
    for (const std::string end : {"a", "b"}) {
      SCOPED_TRACE(name + "." + end);
      const auto r = run_ackstall({"scan", (corpus_dir() / (name + "." + end + ".pcapng")).string(), "--json"});
      ASSERT_EQ(r.code, 0) << r.err;
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["format"], "pcapng");
      ASSERT_EQ(j["flows"].size(), 1u);
      const auto& d = j["flows"][0]["directions"][0];
      const int stalls = d["stall_count"].get<int>();
      EXPECT_EQ(stalls, truth["sender_stalls"].get<int>());
      EXPECT_EQ(stalls, truth["tshark_late_acks"][end].get<int>());
      const bool ipv6 = truth["ip"] == "v6";
      EXPECT_EQ(d["sender"].get<std::string>().rfind(ipv6 ? "[fd77::1]:" : "10.77.0.1:", 0), 0u) << d["sender"];
      EXPECT_EQ(d["mss"].get<int>(), ipv6 ? 1428 : 1448);
      EXPECT_EQ(d["timestamps"], true);
      // The capture sees the sends: whole writes unpatched, the seed's chunks (7240 = 5 MSS) chunked.
      if (truth["policy"] == "unpatched") {
        EXPECT_EQ(d["diagnosis"]["write_size"], truth["write_len"]);
      } else {
        EXPECT_EQ(d["diagnosis"]["write_size"].get<int>(), 5 * (ipv6 ? 1428 : 1448));
      }
      // Linux does not hold these tails (Minshall's Nagle; the lab's shaper only queues them).
      EXPECT_NE(d["diagnosis"]["evidence"].dump().find("Nagle: no segment held for an ACK"), std::string::npos)
          << d["diagnosis"]["evidence"];
      v6 += ipv6 ? 1 : 0;
      // The unpatched odd-segment writes wait on the receiver's delayed ACK, write after write, and
      // the verdict says so and fits Linux's timer.
      if (stalls * 2 >= truth["writes"].get<int>()) {
        ++stalled;
        EXPECT_EQ(d["stalls_by_kind"]["delayed_ack"].get<int>(), stalls);
        EXPECT_NE(d["diagnosis"]["mechanism"].get<std::string>().find("delayed-ACK timer"), std::string::npos)
            << d["diagnosis"]["mechanism"];
        EXPECT_NE(d["diagnosis"]["timer_fits"].dump().find("Linux"), std::string::npos) << d["diagnosis"]["timer_fits"];
      }
    }
  }
  EXPECT_GE(stalled, 6);  // 10000 and 15928 over IPv4, 15000 over IPv6, at both ends
  EXPECT_GE(v6, 6);
}

// A capture cut short mid-record (dumpcap stopped hard) is analysed up to the cut with one warning,
// and its stalls equal tshark's late ACKs on the same cut file.
TEST(ScanCorpus, CutShortCountsEqualTsharks) {
  if (std::system("tshark --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "tshark not installed: Debian package tshark";
  const TempDir dir;
  const std::string whole = read_text(corpus_dir() / "classic-10000-unpatched-v4.b.pcapng");
  const auto cut = dir / "cut.pcapng";
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() * 3 / 5 + 7);  // inside a block
  const auto r = run_ackstall({"scan", cut.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("ackstall: warning: " + cut.string() + ": cut short at record "), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const int ours = j["flows"][0]["directions"][0]["stall_count"].get<int>();
  const std::string count = (dir / "tshark.txt").string();
  ASSERT_EQ(std::system(("tshark -n -r " + cut.string() + " -Y 'tcp.analysis.ack_rtt > 0.02' 2>/dev/null | wc -l > " +
                         count).c_str()), 0);
  const int theirs = std::stoi(read_text(count));
  EXPECT_GT(ours, 2);
  EXPECT_EQ(ours, theirs);
}

// The emitted scenario says when it cannot carry the capture's pace: here stalls too rare to be a
// rule (VALIDATION §6: the scenario then runs faster than the capture), and nothing for the rest.
TEST(ScanCorpus, EmittedScenarioSaysWhatItCannotCarry) {
  const TempDir dir;
  const auto manifest = nlohmann::json::parse(read_text(corpus_dir() / "manifest.json"));
  int noted = 0;
  for (const auto& [name, truth] : manifest.items()) {
    SCOPED_TRACE(name);
    const std::string toml = (dir / (name + ".toml")).string();
    const auto r = run_ackstall({"scan", (corpus_dir() / (name + ".b.pcapng")).string(), "--emit-scenario", toml});
    ASSERT_EQ(r.code, 0) << r.err;
    const int stalls = truth["sender_stalls"].get<int>();
    const bool rare = stalls > 0 && stalls * 2 < truth["writes"].get<int>();
    EXPECT_EQ(r.out.find("\nnote: " + std::to_string(stalls) + " delayed-ACK stalls in about ") != std::string::npos, rare)
        << r.out;
    // The file's caveats are the notes, less the replay's own two lines (printed after it).
    const std::string notes = r.out.substr(0, r.out.find("\nnote: replayed in the simulator: "));
    EXPECT_NE(notes.size(), r.out.size()) << "no replay line: " << r.out;
    EXPECT_EQ(read_text(toml).find("# caveat: ") != std::string::npos, notes.find("\nnote: ") != std::string::npos);
    noted += rare ? 1 : 0;
  }
  EXPECT_GE(noted, 1);
}

}  // namespace
}  // namespace ackstall::tools
