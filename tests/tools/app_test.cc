#include "ackstall/cli/run.h"
#include "cli_runner.h"
#include "ackstall/sim/config.h"
#include "ackstall/ttcp/config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
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

// The default policy of each entry point (docs/GUIDE.md §5): the library picks for the platform
// (auto, tests/net/chunked_sender_test.cc), ttcp and sim reproduce the unmodified program
// (none), plan and probe show the seed's patch (seed).
TEST(Plan, DefaultPoliciesFollowTheStatedRule) {
  const auto r = run_ackstall({"plan", "--mss", "1448", "--sndbuf", "8192", "--len", "8192", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"policy\":\"seed\""), std::string::npos) << r.out;
#if defined(ACKSTALL_HAVE_SIM)
  EXPECT_EQ(sim::ExperimentConfig{}.app.transmitter.chunking, core::PolicyKind::none);
#endif
  EXPECT_EQ(ttcp::Config{}.chunk, core::PolicyKind::none);
}

TEST(Plan, PolicyAndJson) {
  auto r = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "20000", "--policy",
                    "cygwin"});
  EXPECT_EQ(r.out, "8192\n8192\n3616\n");
  r = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "8192", "--json"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("\"chunks\":[5840,2352]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"base_chunk\":7300"), std::string::npos) << r.out;
}

TEST(Plan, SizesTakeTheOneGrammar) {
  const auto r = run_ackstall({"plan", "--mss", "1448", "--sndbuf", "8k", "--len", "8k"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "5792\n2400\n");
  expect_usage_error(run_ackstall({"plan", "--mss", "1448", "--sndbuf", "8q", "--len", "1"}), "--sndbuf");
  expect_usage_error(run_ackstall({"plan", "--mss", "1448", "--sndbuf", "2G", "--len", "1"}), "out of range");
}

TEST(Plan, SummaryCountsOneChunkInTheSingular) {
  const auto r = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8k", "--len", "1000", "--summary"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("1 chunk of 1000 bytes", 0), 0u) << r.out;  // was "1 chunks"
}

// A 64 GiB send with a 1-byte MSS: streamed, and counted per size without walking every chunk.
TEST(Plan, StreamsAndSummarisesHugeSends) {
  const auto r = run_ackstall({"plan", "--mss", "1", "--sndbuf", "3", "--len", "64G", "--summary"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("chunks of 68719476736 bytes"), std::string::npos) << r.out;
  const auto j = run_ackstall({"plan", "--mss", "1", "--sndbuf", "3", "--len", "64G", "--summary", "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_NE(j.out.find("\"len\": 68719476736"), std::string::npos) << j.out;
}

// --summary's counts (found by bisection) equal the chunk-by-chunk walk, for every policy.
TEST(Plan, SummaryEqualsTheWalk) {
  for (const char* policy : {"none", "seed", "cygwin", "cygwin-patch", "robust", "auto", "isb"})
    for (const char* mss : {"1", "536", "1448", "1460", "8960"})
      for (const char* sndbuf : {"1", "3", "1000", "1460", "2920", "8192", "65536"})
        for (const char* len : {"0", "1", "1447", "8192", "15928", "100000"}) {
          const std::vector<std::string> base = {"plan", "--mss", mss, "--sndbuf", sndbuf, "--len", len,
                                                 "--policy", policy};
          const auto walk = run_ackstall(base);
          ASSERT_EQ(walk.code, 0) << walk.err;
          std::map<std::string, int> counts;
          std::istringstream in(walk.out);
          for (std::string line; std::getline(in, line);) ++counts[line];
          auto args = base;
          args.push_back("--summary");
          const auto sum = run_ackstall(args);
          ASSERT_EQ(sum.code, 0) << sum.err;
          std::string expected;
          for (const auto& [size, n] : counts) expected += size + " x " + std::to_string(n) + "\n";
          std::string got;
          std::istringstream s(sum.out);
          std::string line;
          std::getline(s, line);  // the headline
          for (; std::getline(s, line);) got += line.substr(line.find_first_not_of(' ')) + "\n";
          // The walk sorts sizes as strings, the summary numerically: compare as sets of lines.
          std::multiset<std::string> a, b;
          std::istringstream ea(expected), gb(got);
          for (std::string l; std::getline(ea, l);) a.insert(l);
          for (std::string l; std::getline(gb, l);) b.insert(l);
          EXPECT_EQ(a, b) << policy << " mss " << mss << " sndbuf " << sndbuf << " len " << len;
        }
}

TEST(Plan, SaysWhenThePolicyDoesNotAct) {
  const auto r = run_ackstall({"plan", "--mss", "65483", "--sndbuf", "8k", "--len", "64k"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("ackstall: note: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("MSS"), std::string::npos) << r.err;
  const auto isb = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "64k", "--len", "64k", "--policy", "isb"});
  ASSERT_EQ(isb.code, 0) << isb.err;
  EXPECT_NE(isb.err.find("ideal send backlog"), std::string::npos) << isb.err;
  // --sndbuf-rule: the same rule with any cut; a contradiction is a usage error naming both.
  const auto rule = run_ackstall(
      {"plan", "--mss", "1460", "--sndbuf", "64k", "--len", "64k", "--policy", "robust", "--sndbuf-rule", "ideal-backlog"});
  ASSERT_EQ(rule.code, 0) << rule.err;
  EXPECT_NE(rule.err.find("ideal send backlog"), std::string::npos) << rule.err;
  const auto clash = run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8k", "--len", "64k", "--policy", "isb",
                                   "--raise-sndbuf"});
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.err.find("--raise-sndbuf contradicts --policy isb"), std::string::npos) << clash.err;
}

// --raise-sndbuf: robust plans under the SO_SNDBUF it recommends (KB823764); at jumbo MSS with
// MSS < SO_SNDBUF < 2 MSS only where the peer's window holds the raise (docs/STACKS.md §8).
TEST(Plan, RaiseSndbufPlansUnderTheRaisedQuota) {
  const std::vector<std::string> base = {"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "8192",
                                         "--policy", "robust", "--json"};
  auto raised = base;
  raised.push_back("--raise-sndbuf");
  const auto r = run_ackstall(raised);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sndbuf_used"], 16 * 1460);
  EXPECT_EQ(j["chunks"], (nlohmann::json{5840, 2352}));
  EXPECT_NE(r.err.find("SO_SNDBUF 8192 -> 23360 recommended"), std::string::npos) << r.err;
  const auto kept = run_ackstall(base);
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_EQ(nlohmann::json::parse(kept.out)["sndbuf_used"], 8192);
  // Jumbo MSS, 16 KiB: the raise waits for a window that holds 4 MSS.
  const std::vector<std::string> jumbo = {"plan", "--mss", "8960", "--sndbuf", "16k", "--len", "64k", "--policy",
                                          "robust", "--raise-sndbuf", "--summary"};
  auto narrow = jumbo;
  narrow.insert(narrow.end(), {"--peer-window", "17920"});
  const auto n = run_ackstall(narrow);
  ASSERT_EQ(n.code, 0) << n.err;
  EXPECT_EQ(n.out.find("raised"), std::string::npos) << n.out;
  EXPECT_NE(n.err.find("the peer's window 17920 cannot hold"), std::string::npos) << n.err;
  auto wide = jumbo;
  wide.insert(wide.end(), {"--peer-window", "64k"});
  const auto w = run_ackstall(wide);
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.out.find("SO_SNDBUF raised to 35840"), std::string::npos) << w.out;
  expect_usage_error(run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8192", "--len", "1", "--peer-window", "0"}),
                     "--peer-window");
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
  expect_usage_error(run_ackstall({}), "a subcommand is required");
  expect_usage_error(run_ackstall({"frobnicate"}), "frobnicate");
}

TEST(Cli, MistypedFlagOrSubcommandGetsTheClosestName) {
  expect_usage_error(run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8k", "--len", "1", "--polcy", "seed"}),
                     "plan: unknown option or argument '--polcy' (did you mean --policy?)");
  expect_usage_error(run_ackstall({"ttcp", "-t", "-s", "--chunk=seed", "--emulate-adf=8k", "h"}),
                     "(did you mean --emulate-afd?)");
  expect_usage_error(run_ackstall({"tccp", "-r"}), "unknown subcommand 'tccp' (did you mean ttcp?)");
#if defined(ACKSTALL_HAVE_LAB)
  // A nested command's flags too, named with its parent (before anything is set up).
  expect_usage_error(run_ackstall({"lab", "up", "--reciever-acks", "windows"}),
                     "lab up: unknown option or argument '--reciever-acks' (did you mean --receiver-acks?)");
  // A receiver ACK mode beside the Windows-like receiver would do nothing: said before any setup.
  expect_usage_error(run_ackstall({"lab", "up", "--receiver-acks", "windows", "--ack-mode", "classic"}),
                     "lab up: --ack-mode classic has no effect with --receiver-acks windows");
#endif
  // Nothing close: the pointer to --help stays.
  expect_usage_error(run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8k", "--len", "1", "--frobnicate"}),
                     "'--frobnicate' (try plan --help)");
}

// What new users met (issue: "reports people share", frictions): each error names its command
// and, for a closed set of words, the closest one.
TEST(Cli, FrictionsANewUserMet) {
  // A missing argument names the command it belongs to.
  expect_usage_error(run_ackstall({"probe"}), "probe: target is required (try probe --help)");
  // A one-letter flag is no typo of another ("-x" is not "did you mean -h?").
  const auto x = run_ackstall({"probe", "127.0.0.1", "-x", "5941"});
  EXPECT_EQ(x.code, kExitUsage);
  EXPECT_EQ(x.err.find("did you mean"), std::string::npos) << x.err;
  // probe takes the port as ttcp does (-p) or as HOST:PORT, not two different ones.
  expect_usage_error(run_ackstall({"probe", "127.0.0.1:80", "-p", "5941"}), "names port 80, -p says 5941");
  // Closed sets of words suggest the closest one, as flags and scenario keys do.
  expect_usage_error(run_ackstall({"ttcp", "-t", "-s", "--chunk", "robus", "127.0.0.1"}), "(did you mean robust?)");
  expect_usage_error(run_ackstall({"plan", "--mss", "1460", "--sndbuf", "8k", "--len", "1", "--policy", "sed"}),
                     "'sed' is not one of");
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

TEST(Cli, UsageWithoutSubcommandAndVersion) {
  const auto none = run_ackstall({});
  EXPECT_EQ(none.code, kExitUsage);
  EXPECT_NE(none.out.find("Usage"), std::string::npos) << none.out;
  EXPECT_NE(none.err.find("plan"), std::string::npos) << none.err;
  const auto v = run_ackstall({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("ackstall ", 0), 0u) << v.out;
  EXPECT_EQ(std::count(v.out.begin(), v.out.end(), '\n'), 1);
}

// The README's exit codes, per subcommand: --help 0, an unknown flag 2 with one line naming it.
TEST(Cli, EverySubcommandFollowsTheConventions) {
  for (const char* sub : {"plan", "probe", "ttcp",
#if defined(ACKSTALL_HAVE_SIM)
                          "sim", "scan",
#endif
#if defined(ACKSTALL_HAVE_LAB)
                          "lab",
#endif
       }) {
    const auto help = run_ackstall({sub, "--help"});
    EXPECT_EQ(help.code, kExitOk) << sub;
    EXPECT_FALSE(help.out.empty()) << sub;
    expect_usage_error(run_ackstall({sub, "--no-such-flag"}), "--no-such-flag");
  }
#if defined(ACKSTALL_HAVE_SIM)
  // Runtime failures exit 1: an output file that cannot be created.
  expect_one_line_error(run_ackstall({"sim", "--defaults", "--set", "app.transmitter.writes=1", "--pcap",
                                      "/nonexistent-dir/x.pcap"}),
                        kExitFailure, "/nonexistent-dir/x.pcap");
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
