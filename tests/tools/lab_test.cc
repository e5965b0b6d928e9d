// ackstall lab: real namespaces (root only; skipped with a message otherwise). Bounded: each
// transfer is short; the whole file runs in well under a minute.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app.h"
#include "cli_runner.h"
#include "lab_netns.h"

namespace ackstall::tools {
namespace {

CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "lab");
  return run_ackstall(args);
}

bool ns_exists(const char* n) { return std::filesystem::exists(std::string("/run/netns/") + n); }

class Lab : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lab::have_root()) GTEST_SKIP() << "lab tests need root (network namespaces); skipped";
    if (lab::run_command({"ip", "-V"}).has_value() == false) GTEST_SKIP() << "iproute2 'ip' not found; skipped";
  }
  void TearDown() override {
    if (lab::have_root()) (void)lab::lab_down();
  }
};

TEST(LabNoRoot, BadUsageIsExitTwo) {
  const auto r = run_cli({"up", "--rate", "fast"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_EQ(r.err.rfind("ackstall: ", 0), 0u);
  const auto m = run_cli({"matrix", "--cases", "bogus"});
  EXPECT_EQ(m.code, kExitUsage) << m.err;
  const auto x = run_cli({"run", "--", "-r"});
  EXPECT_EQ(x.code, kExitUsage) << x.err;
  EXPECT_NE(x.err.find("transmitter flags"), std::string::npos) << x.err;
}

TEST(LabNoRoot, RateAndLineRate) {
  EXPECT_EQ(lab::parse_rate("100mbit"), 100e6);
  EXPECT_FALSE(lab::parse_rate("100"));
  EXPECT_NEAR(lab::line_rate_bytes_per_s(100e6, true) / 1e6, 11.77, 0.01);  // §7 line rate
}

TEST_F(Lab, UpRunDownAndStaleCleanup) {
  auto up = run_cli({"up", "--ack-mode", "classic"});
  ASSERT_EQ(up.code, 0) << up.err;
  EXPECT_TRUE(ns_exists("ackstall-a") && ns_exists("ackstall-b"));
  // A second up finds the first as stale, removes it and starts clean.
  auto again = run_cli({"up"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("removing a stale lab"), std::string::npos) << again.out;

  auto run = run_cli({"run", "--ack-mode", "classic", "--", "-n", "300", "-l", "8192", "--chunk", "seed",
                      "--emulate-afd", "--verify", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["receiver"]["end"]["sum_received"]["bytes"], 300 * 8192);
  EXPECT_EQ(j["transmitter"]["end"]["tcp_mss"], 1448);  // timestamps on
  const double bps = j["transmitter"]["end"]["sum_sent"]["bits_per_second"];
  EXPECT_LT(bps, 100e6);  // shaped
  EXPECT_GT(bps, 20e6);

  auto down = run_cli({"down"});
  EXPECT_EQ(down.code, 0) << down.err;
  EXPECT_FALSE(ns_exists("ackstall-a") || ns_exists("ackstall-b"));
  auto orphan = run_cli({"run", "--", "-n", "1"});
  EXPECT_EQ(orphan.code, kExitFailure);
  EXPECT_NE(orphan.err.find("no lab is up"), std::string::npos) << orphan.err;
}

TEST_F(Lab, TinyQueueDropsRandomSizesStillByteExact) {
  ASSERT_EQ(run_cli({"up", "--queue-bytes", "4000", "--rate", "20mbit"}).code, 0);
  for (const char* len : {"1", "1447", "7300", "65537"}) {
    auto r = run_cli({"run", "--", "--time", "0.4", "-l", len, "--verify", "--chunk", "seed"});
    ASSERT_EQ(r.code, 0) << len << ": " << r.err;
    EXPECT_NE(r.out.find("match the pattern"), std::string::npos) << r.out;
  }
}

TEST_F(Lab, MatrixSmallIsMedianTableJsonCsvAndCleansUp) {
  const std::string json = ::testing::TempDir() + "/lab_matrix.json";
  const std::string csv = ::testing::TempDir() + "/lab_matrix.csv";
  auto r = run_cli({"matrix", "--ack-mode", "classic", "--lengths", "8192,15928", "--cases",
                    "unpatched,chunked", "--runs", "1", "--time", "0.5", "--json", json, "--csv", csv});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("15928  unpatched"), std::string::npos) << r.out;
  EXPECT_FALSE(ns_exists("ackstall-a") || ns_exists("ackstall-b"));
  std::ifstream jf(json);
  const auto j = nlohmann::json::parse(jf);
  ASSERT_EQ(j["rows"].size(), 4u);
  // §7: 15928 = 11 full segments (odd) stalls on every send under a classic receiver, 8192 does
  // not; the chunked 15928 does far better than the unpatched one.
  double l15928_unpatched = 0, l15928_chunked = 0;
  for (const auto& row : j["rows"]) {
    if (row["len"] == 15928 && row["case"] == "unpatched") l15928_unpatched = row["median_mb_s"];
    if (row["len"] == 15928 && row["case"] == "chunked") l15928_chunked = row["median_mb_s"];
  }
  EXPECT_GT(l15928_chunked, 3 * l15928_unpatched) << r.out;
  std::ifstream cf(csv);
  std::string header;
  std::getline(cf, header);
  EXPECT_EQ(header.rfind("len,case,median_mb_s", 0), 0u);
}

}  // namespace
}  // namespace ackstall::tools
