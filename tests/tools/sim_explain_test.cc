// `sim` explains the dominant stall in one sentence from the run's counters (the delayed-ACK
// mechanism in pcap::word's words, as scan's verdict).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace ackstall::tools {
namespace {

std::string why(const std::string& scenario) {
  const auto r = run_ackstall({"sim", std::string(ACKSTALL_SOURCE_DIR) + "/examples/" + scenario, "--set",
                               "app.transmitter.writes=300", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out)["explanation"];
}

TEST(SimExplain, TheSeedsMechanism) {
  const std::string s = why("seed/02-unpatched.toml");
  for (const char* part : {"at most 8192 bytes in flight", "each 8192-byte write in 6 segments",
                           "Nagle (classic) holds the 892-byte tail", "leaves segment 5 alone", "(BSD, ACKs every second segment)",
                           "~200.0 ms", "SO_SNDBUF charged per whole send"})
    EXPECT_NE(s.find(part), std::string::npos) << part << " in: " << s;
}

TEST(SimExplain, OddSegmentCountAndLinuxTimer) {
  const std::string s = why("lab/pingpong-l15928.toml");
  EXPECT_NE(s.find("11 segments"), std::string::npos) << s;
  EXPECT_NE(s.find("the ACK of the lone last segment"), std::string::npos) << s;
  EXPECT_NE(s.find("~40.0 ms and up"), std::string::npos) << s;
  EXPECT_NE(s.find("Linux"), std::string::npos) << s;
}

TEST(SimExplain, OneSegmentIsSingular) {
  const auto r = run_ackstall({"sim", "--defaults", "--set", "app.transmitter.write_len=1000", "--set",
                               "app.transmitter.writes=20", "--set", "sender.send_buffer.size=1000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string s = nlohmann::json::parse(r.out)["explanation"];
  EXPECT_NE(s.find("write in 1 segment;"), std::string::npos) << s;  // was "1 segments"
}

TEST(SimExplain, HealthyRunsAndShortWaits) {
  EXPECT_NE(why("seed/04-patched-l7300.toml").find("the link is the limit"), std::string::npos);
  const std::string scp = why("seed/09-scp-openbsd-to-cygwin-before.toml");
  EXPECT_NE(scp.find("select() pipe thread"), std::string::npos) << scp;
  EXPECT_NE(scp.find("short waits"), std::string::npos) << scp;
}

// The in-flight bound is no more than one write: 1500-byte writes under a 64 KiB send buffer
// said "at most 65536 bytes in flight".
TEST(SimExplain, TheFlightBoundIsNoMoreThanAWrite) {
  const auto r = run_ackstall({"sim", "--defaults", "--set", "app.transmitter.write_len=1500", "--set",
                               "app.transmitter.writes=20", "--set", "sender.send_buffer.size=65536", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string s = nlohmann::json::parse(r.out)["explanation"];
  EXPECT_NE(s.find("at most 1500 bytes in flight"), std::string::npos) << s;
}

// The SO_SNDBUF a run used: robust's raise (KB823764) is reported, in text and JSON.
TEST(SimExplain, ReportsTheSendBufferAndItsRaise) {
  const std::string file = std::string(ACKSTALL_SOURCE_DIR) + "/examples/seed/07-patched-defaults.toml";
  const std::vector<std::string> robust = {"sim", file, "--set", "app.transmitter.writes=50", "--set",
                                           "app.transmitter.chunking=robust"};
  auto raised = robust;
  raised.insert(raised.end(), {"--set", "app.transmitter.allow_raise_sndbuf=true"});
  const auto text = run_ackstall(raised);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("SO_SNDBUF 23360 (raised from 8192 by the policy, KB823764)"), std::string::npos) << text.out;
  raised.push_back("--json");
  const auto json = run_ackstall(raised);
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["sndbuf"], 23360);
  const auto kept = run_ackstall(robust);
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_NE(kept.out.find("SO_SNDBUF 8192\n"), std::string::npos) << kept.out;
}

}  // namespace
}  // namespace ackstall::tools
