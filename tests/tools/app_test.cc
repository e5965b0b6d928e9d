#include "app.h"
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace ackstall::tools {
namespace {

void expect_usage_error(const CliResult& r, const std::string& mentions) {
  expect_one_line_error(r, kExitUsage, mentions);
}

TEST(Plan, PrintsOneChunkPerLine) {
  const auto r = run_ackstall({"plan", "--mss", "1448", "--sndbuf", "8192", "--len", "8192"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "5792\n2400\n");
}

TEST(Plan, PolicyAndJson) {
  auto r = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "20000", "--policy",
                    "cygwin"});
  EXPECT_EQ(r.out, "8192\n8192\n3616\n");
  r = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "8192", "--json"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("\"chunks\": [\n    5840,\n    2352\n  ]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"base_chunk\": 7300"), std::string::npos);
}

TEST(Plan, BadInputNamesTheFlag) {
  expect_usage_error(run_ackstall({"plan", "--sndbuf", "8192", "--len", "1"}), "--mss");
  expect_usage_error(run_ackstall({"plan", "--mss", "abc", "--sndbuf", "8192", "--len", "1"}), "--mss");
  expect_usage_error(run_ackstall({"plan", "--mss", "0", "--sndbuf", "8192", "--len", "1"}), "--mss");
  expect_usage_error(run_ackstall({"plan", "--mss", "1460", "--sndbuf", "-5", "--len", "1"}),
                     "--sndbuf");
  expect_usage_error(
      run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "1", "--policy", "fast"}),
      "--policy");
  expect_usage_error(run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "1", "--bogus"}),
                     "--bogus");
  expect_usage_error(run_ackstall({}), "subcommand");
  expect_usage_error(run_ackstall({"frobnicate"}), "frobnicate");
}

TEST(Cli, HostOnlyCommandsSayWhyTheyAreMissing) {
#if defined(ACKSTALL_HAVE_SIM)
  EXPECT_EQ(run_ackstall({"sim", "--help"}).code, 0);
#else  // the MinGW build: sim and scan are host-only
  expect_usage_error(run_ackstall({"sim", "x.toml"}), "'sim' is not in this build: it needs the simulator");
  expect_usage_error(run_ackstall({"scan", "x.pcap"}), "'scan' is not in this build");
#endif
#if defined(ACKSTALL_HAVE_LAB)
  EXPECT_EQ(run_ackstall({"lab", "--help"}).code, 0);
#else
  expect_usage_error(run_ackstall({"lab", "up"}), "'lab' is not in this build: it needs Linux network namespaces");
#endif
}

TEST(Cli, HelpExitsZero) {
  auto r = run_ackstall({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("plan"), std::string::npos);
  r = run_ackstall({"plan", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--sndbuf"), std::string::npos);
}

}  // namespace
}  // namespace ackstall::tools
