// ackstall ttcp on loopback through run(): both ends in-process (two threads). Also built with
// MinGW and run under Wine (scripts/test-windows.sh; tests/CMakeLists.txt lists what is left out
// there and why).
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN  // no <objbase.h>: its `interface` macro breaks net/socket_ops.h
#include <winsock2.h>        // first: before anything that may pull in <windows.h>
#else
#include <sys/socket.h>
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/net/tcp_socket.h"
#include "ackstall/cli/run.h"
#include "cli_runner.h"
#include "ackstall/ttcp/pattern.h"

namespace ackstall::tools {
namespace {

CliResult run_cli(std::vector<std::string> args, const std::string& input = {}) {
  args.insert(args.begin(), "ttcp");
  return run_ackstall(args, input);
}

std::uint16_t free_port() {
  auto l = net::listen_tcp({"127.0.0.1", 0});
  return l ? l->port : 0;
}

// Runs the receiver with `rx` flags and the transmitter with `tx` flags on one free port.
std::pair<CliResult, CliResult> transfer(std::vector<std::string> rx, std::vector<std::string> tx) {
  const std::string port = std::to_string(free_port());
  rx.insert(rx.end(), {"-r", "-s", "-p", port, "--bind", "127.0.0.1", "--accept-timeout-ms", "10000"});
  tx.insert(tx.end(), {"-t", "-s", "-p", port, "127.0.0.1"});
  CliResult r{};
  std::thread receiver([&] { r = run_cli(rx); });
  CliResult t = run_cli(tx);
  receiver.join();
  return {t, r};
}

TEST(Ttcp, ClassicFlagsPrintTtcpStyleReport) {
  auto [t, r] = transfer({"-l", "8192"}, {"-n", "500", "-l", "8192", "-D", "-v"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(t.out.find("ttcp-t: buflen=8192, nbuf=500, align=16384/0, port="), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ttcp-t: nodelay"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ttcp-t: 4096000 bytes in "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" KB/sec +++ ("), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("MB/s"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ttcp-t: 500 I/O calls"), std::string::npos) << t.out;
  EXPECT_NE(r.out.find("ttcp-r: 4096000 bytes in "), std::string::npos) << r.out;
}

TEST(Ttcp, CombinedShortFlagsAsTtcpUsersTypeThem) {
  auto [t, r] = transfer({}, {"-n100", "-l1000"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("100000 bytes in"), std::string::npos) << t.out;
}

#if defined(__linux__)  // --emulate-afd needs SO_TIMESTAMPING TX_ACK
TEST(Ttcp, VerifyWithChunkingAndEmulatedAfdIsByteExact) {
  auto [t, r] = transfer({"--verify", "-l", "3001"},
                         {"--verify", "-n", "400", "-l", "15928", "--chunk", "seed", "--emulate-afd=8192"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("--verify: 6371200 bytes match the pattern"), std::string::npos) << r.out;
  EXPECT_NE(t.out.find("emulate-afd quota=8192: 400 sends, "), std::string::npos) << t.out;
  // Two stall counts, each saying what it counts (they may differ by the final wait for all ACKs).
  EXPECT_NE(t.out.find(" ms, counted per wait for the quota, the last one for every ACK included"), std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find(" ms, counted per application send (longest "), std::string::npos) << t.out;
  EXPECT_NE(r.out.find(" ms, counted per application read (longest "), std::string::npos) << r.out;
}

TEST(Ttcp, JsonFollowsIperf3Shape) {
  auto [t, r] = transfer({"--json", "--interval", "0.05"},
                         {"--json", "--time", "0.3", "--interval", "0.1", "-l", "16384", "--emulate-afd", "-b", "8192"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(t.out);
  EXPECT_EQ(j["start"]["test_start"]["blksize"], 16384);
  EXPECT_EQ(j["start"]["test_start"]["emulate_afd"], 8192);
  EXPECT_GT(j["end"]["sum_sent"]["bytes"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["end"]["sum_sent"]["bits_per_second"].get<double>(), 0.0);
  EXPECT_GE(j["intervals"].size(), 2u);
  EXPECT_TRUE(j["end"]["afd"].contains("stalls"));
  EXPECT_TRUE(j["end"]["afd"].contains("waited_seconds"));
  const auto jr = nlohmann::json::parse(r.out);
  EXPECT_EQ(jr["end"]["sum_received"]["bytes"], j["end"]["sum_sent"]["bytes"]);
}
#else
TEST(Ttcp, EmulatedAfdIsLinuxOnly) {
  expect_one_line_error(run_cli({"-t", "-s", "--emulate-afd=8192", "127.0.0.1"}), kExitUsage,
                        "--emulate-afd needs Linux");
}
#endif

TEST(Ttcp, VerifyWithChunkingIsByteExact) {
  auto [t, r] = transfer({"--verify", "-l", "3001"},
                         {"--verify", "-n", "300", "-l", "15928", "--chunk", "seed", "-b", "8192"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("--verify: 4778400 bytes match the pattern"), std::string::npos) << r.out;
}

TEST(Ttcp, ReceiverAckModesTransfer) {
  for (const char* mode : {"classic", "quickack"}) {
    auto [t, r] = transfer({"--ack-mode", mode, "--verify"}, {"-n", "200", "--verify"});
#if defined(_WIN32)
    // SIO_TCP_SET_ACK_FREQUENCY: Windows 8+; Wine does not implement it. Either the transfer
    // works or the receiver fails with one line naming the ioctl.
    if (r.code != 0) {
      expect_one_line_error(r, kExitFailure, "SIO_TCP_SET_ACK_FREQUENCY");
      continue;
    }
#endif
    EXPECT_EQ(t.code, 0) << mode << t.err;
    EXPECT_EQ(r.code, 0) << mode << r.err;
  }
}

TEST(Ttcp, ReceiverReportsEarlyClose) {
  auto [t, r] = transfer({"-n", "1000", "-l", "1000"}, {"-n", "10", "-l", "1000"});
  EXPECT_EQ(t.code, 0) << t.err;
  expect_one_line_error(r, kExitFailure, "closed early: 10000 of 1000000 bytes");
}

TEST(Ttcp, TransmitterSurvivesReceiverGoingAway) {
  // The "receiver" accepts and closes at once: the transmitter sees a reset, one line, exit 1.
  auto l = net::listen_tcp({"127.0.0.1", 0});
  ASSERT_TRUE(l.has_value());
  std::thread closer([&] {
    auto c = net::accept_tcp(l->socket);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  const auto t = run_cli({"-t", "-s", "-n", "100000", "-l", "65536", "-p", std::to_string(l->port), "127.0.0.1"});
  closer.join();
  expect_one_line_error(t, kExitFailure, "lost after");
  // The statistics so far come first (they were lost with the error before).
  EXPECT_NE(t.out.find("ttcp-t: connection lost: the transfer so far"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" bytes in "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" I/O calls"), std::string::npos) << t.out;
}

TEST(Ttcp, ReceiverSurvivesPeerReset) {
  const std::uint16_t port = free_port();
  CliResult r{};
  std::thread receiver([&] {
    r = run_cli({"-r", "-s", "-p", std::to_string(port), "--bind", "127.0.0.1", "--accept-timeout-ms", "10000"});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  {
    auto c = net::connect_tcp({"127.0.0.1", port}, std::chrono::seconds(5));
    ASSERT_TRUE(c.has_value());
    const ::linger abort_close{1, 0};  // close() sends RST
    ASSERT_EQ(::setsockopt(c->native(), SOL_SOCKET, SO_LINGER,
                           reinterpret_cast<const char*>(&abort_close), sizeof abort_close),
              0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  receiver.join();
  expect_one_line_error(r, kExitFailure, "Connection reset by peer");
}

TEST(Ttcp, BadInputIsOneLineExitTwo) {
  expect_one_line_error(run_cli({"-t", "-s"}), kExitUsage, "missing HOST");
  expect_one_line_error(run_cli({"-t", "-r", "-s", "x"}), kExitUsage, "exactly one of -t");
  expect_one_line_error(run_cli({"-t", "-s", "-l", "0", "h"}), kExitUsage, "-l");
  expect_one_line_error(run_cli({"-t", "-s", "-p", "70000", "h"}), kExitUsage, "-p");
  expect_one_line_error(run_cli({"-t", "-s", "--chunk", "bogus", "h"}), kExitUsage, "--chunk");
  expect_one_line_error(run_cli({"-r", "-s", "--emulate-afd=8192"}), kExitUsage, "transmitter");
#if defined(__linux__)
  expect_one_line_error(run_cli({"-t", "-s", "-b", "4096", "--emulate-afd=8192", "h"}), kExitUsage,
                        "both set the quota");
#endif
  expect_one_line_error(run_cli({"-t", "-s", "--ack-mode", "classic", "h"}), kExitUsage, "receiver");
  expect_one_line_error(run_cli({"-r", "-s", "--bind", "not-an-address", "-p", "0", "--accept-timeout-ms", "1"}),
                        kExitFailure, "listen on");
  expect_one_line_error(run_cli({"-t", "-s", "-n", "1", "-p", "9", "no.such.host.invalid",
                                 "--connect-timeout-ms", "100"}),
                        kExitFailure, "connect to no.such.host.invalid:9");
}

TEST(Ttcp, WithoutSourceSinkStdinGoesToStdoutAsInTtcp) {
  // Every byte value, CR/LF and NUL among them; a length that is not a multiple of -l.
  std::string data(3'000'001, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 7919 + i / 251) & 0xff);
  const std::string port = std::to_string(free_port());
  CliResult r{};
  std::thread receiver([&] {
    r = run_cli({"-r", "-l", "5000", "-p", port, "--bind", "127.0.0.1", "--accept-timeout-ms", "10000"});
  });
  const CliResult t = run_cli({"-t", "-l", "7000", "--chunk", "seed", "-b", "8192", "-p", port, "127.0.0.1"}, data);
  receiver.join();
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out == data) << "received " << r.out.size() << " of " << data.size() << " bytes, or other bytes";
  EXPECT_TRUE(t.out.empty()) << t.out;  // reports go to stderr, as ttcp's
  EXPECT_NE(t.err.find("ttcp-t: 3000001 bytes in "), std::string::npos) << t.err;
  EXPECT_NE(t.err.find("ttcp-t: 429 I/O calls"), std::string::npos) << t.err;  // ceil(3000001 / 7000) sends
  EXPECT_NE(r.err.find("ttcp-r: 3000001 bytes in "), std::string::npos) << r.err;
}

TEST(Ttcp, WithoutSourceSinkMinusNBoundsTheInput) {
  const std::string port = std::to_string(free_port());
  CliResult r{};
  std::thread receiver([&] {
    r = run_cli({"-r", "-p", port, "--bind", "127.0.0.1", "--accept-timeout-ms", "10000"});
  });
  const CliResult t = run_cli({"-t", "-n", "3", "-l", "1000", "-p", port, "127.0.0.1"}, std::string(10000, 'x'));
  receiver.join();
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string(3000, 'x'));
}

TEST(Ttcp, ChunkIsbReportsTheIdealSendBacklogReading) {
  auto [t, r] = transfer({"--verify"}, {"--verify", "-n", "200", "-l", "20000", "--chunk", "isb", "--json"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(t.out);
  EXPECT_EQ(j["start"]["test_start"]["chunk"], "isb");
  const auto& isb = j["end"]["isb"];
#if defined(_WIN32)  // Windows answers SIO_IDEAL_SEND_BACKLOG_QUERY (Wine: a constant 65536)
  if (isb["provenance"] == "measured") {
    EXPECT_GT(isb["value"].get<std::int64_t>(), 0);
  }
#else  // no such query: the plain seed policy, and the report says why
  EXPECT_EQ(isb["provenance"], "fallback");
#endif
  EXPECT_FALSE(isb["source"].get<std::string>().empty());
}

// --sndbuf-rule is SO_SNDBUF's handling beside the cut; --chunk isb and --raise-sndbuf are its
// older spellings, and two that differ are a usage error naming both.
TEST(Ttcp, SndbufRuleIsItsOwnChoice) {
  auto [t, r] = transfer({}, {"-n", "20", "-l", "20000", "--chunk", "robust", "--sndbuf-rule", "raise", "--json"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(t.out);
  EXPECT_EQ(j["start"]["test_start"]["chunk"], "robust");
  EXPECT_EQ(j["start"]["test_start"]["sndbuf_rule"], "raise");
  auto [t2, r2] = transfer({}, {"-n", "20", "-l", "20000", "--chunk", "robust", "--sndbuf-rule", "ideal-backlog"});
  ASSERT_EQ(t2.code, 0) << t2.err;
  EXPECT_NE(t2.out.find("chunk=robust sndbuf-rule=ideal-backlog"), std::string::npos) << t2.out;
  expect_one_line_error(run_cli({"-t", "-s", "--chunk", "isb", "--sndbuf-rule", "raise", "h"}), kExitUsage,
                        "--sndbuf-rule raise contradicts --chunk isb");
  expect_one_line_error(run_cli({"-t", "-s", "--raise-sndbuf", "--sndbuf-rule", "keep", "h"}), kExitUsage,
                        "--sndbuf-rule keep contradicts --raise-sndbuf");
  expect_one_line_error(run_cli({"-t", "-s", "--sndbuf-rule", "rise", "h"}), kExitUsage, "--sndbuf-rule");
}

TEST(Ttcp, SizesTakeTheOneGrammar) {
  auto [t, r] = transfer({"-l", "8k"}, {"-n", "10", "-l", "8k", "-b", "64k"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(t.out.find("buflen=8192,"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("81920 bytes in"), std::string::npos) << t.out;
  expect_one_line_error(run_cli({"-t", "-s", "-b", "3G", "h"}), kExitUsage, "-b");
  expect_one_line_error(run_cli({"-t", "-s", "-l", "8q", "h"}), kExitUsage, "-l");
  expect_one_line_error(run_cli({"-t", "-s", "--emulate-afd=8x", "h"}), kExitUsage, "--emulate-afd=8x");
}

#if defined(__linux__)
TEST(Ttcp, EmulateAfdNeverTakesTheHost) {
  // --emulate-afd never takes an address that follows it: that is the host.
  const std::string port = std::to_string(free_port());
  CliResult r{};
  std::thread receiver([&] { r = run_cli({"-r", "-s", "-p", port, "--bind", "127.0.0.1", "--accept-timeout-ms", "10000"}); });
  const auto t = run_cli({"-t", "-s", "-n", "20", "-p", port, "--emulate-afd", "127.0.0.1"});
  receiver.join();
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("emulated AFD quota 8192"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("-> 127.0.0.1"), std::string::npos) << t.out;
}

TEST(Ttcp, EmulateAfdTakesASizeAfterASpaceAsItsQuota) {
  // "--emulate-afd 16k HOST" was refused as if 16k were the host.
  const std::string port = std::to_string(free_port());
  CliResult r{};
  std::thread receiver([&] { r = run_cli({"-r", "-s", "-p", port, "--bind", "127.0.0.1", "--accept-timeout-ms", "10000"}); });
  const auto t = run_cli({"-t", "-s", "-n", "20", "-p", port, "--emulate-afd", "16k", "127.0.0.1"});
  receiver.join();
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("emulated AFD quota 16384"), std::string::npos) << t.out;
  expect_one_line_error(run_cli({"-t", "-s", "--emulate-afd", "8k"}), kExitUsage,
                        "missing HOST (8k is --emulate-afd's quota)");
  expect_one_line_error(run_cli({"-t", "-s", "--emulate-afd", "8k", "h", "extra"}), kExitUsage,
                        "unexpected argument 'extra'");
}

TEST(Ttcp, OneMssInTheChunkLineVerboseAndJson) {
  // Loopback: Linux's sending MSS starts at half the peer's window (32741) and grows (65483);
  // every report gives the full segment.
  auto [t, r] = transfer({}, {"-n", "500", "--chunk", "seed", "-v"});
  ASSERT_EQ(t.code, 0) << t.err;
  const std::regex chunk_line("chunk=seed \\(mss ([0-9]+),"), verbose_line("ttcp-t: mss ([0-9]+),");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(t.out, a, chunk_line)) << t.out;
  ASSERT_TRUE(std::regex_search(t.out, b, verbose_line)) << t.out;
  EXPECT_EQ(a[1].str(), b[1].str()) << t.out;
  auto [tj, rj] = transfer({}, {"-n", "500", "--json"});
  ASSERT_EQ(tj.code, 0) << tj.err;
  EXPECT_EQ(std::to_string(nlohmann::json::parse(tj.out)["end"]["tcp_mss"].get<int>()), a[1].str());
}

TEST(Ttcp, ChunkSaysWhenThePolicyDoesNotAct) {
  // Loopback's MSS is far above an 8 KiB quota: the seed policy switches off, and says so.
  auto [t, r] = transfer({}, {"-n", "20", "-l", "16k", "--chunk", "seed", "--emulate-afd=8k"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("ttcp-t: note: seed: MSS "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(">= SO_SNDBUF 8192: the seed policy does not chunk"), std::string::npos) << t.out;
}
#endif

TEST(Ttcp, ReceiverBindsIpv6LiteralsWithOrWithoutBrackets) {
  if (!net::listen_tcp({"::1", 0})) GTEST_SKIP() << "no IPv6 loopback here";
  for (const std::string bind : {"::1", "[::1]"}) {
    SCOPED_TRACE(bind);
    const std::string port = std::to_string(free_port());
    CliResult r{};
    std::thread receiver([&] {
      r = run_cli({"-r", "-s", "-p", port, "--bind", bind, "--accept-timeout-ms", "10000", "--json"});
    });
    CliResult t{};
    for (int attempt = 0; attempt < 50; ++attempt) {  // until the receiver listens
      t = run_cli({"-t", "-s", "-n", "10", "-p", port, "::1", "--connect-timeout-ms", "5000"});
      if (t.code == 0) break;
    }
    receiver.join();
    ASSERT_EQ(t.code, 0) << t.err;
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["start"]["connected"][0]["local"], "[::1]:" + port);
    EXPECT_EQ(j["end"]["sum_received"]["bytes"], 81920);
    EXPECT_EQ(j["end"]["interrupted"], nullptr);
  }
}

TEST(Ttcp, IntervalsCarryStallCountsAndTheLastPartialOne) {
  auto [t, r] = transfer({}, {"--time", "0.25", "--interval", "0.1", "--json"});
  ASSERT_EQ(t.code, 0) << t.err;
  const auto j = nlohmann::json::parse(t.out);
  const auto& iv = j["intervals"];
  ASSERT_GE(iv.size(), 3u);  // 0.1, 0.2 and the partial end
  std::uint64_t bytes = 0;
  for (const auto& i : iv) {
    EXPECT_TRUE(i["sum"]["stalls"].is_number_unsigned()) << i.dump();
    bytes += i["sum"]["bytes"].get<std::uint64_t>();
  }
  EXPECT_EQ(bytes, j["end"]["sum_sent"]["bytes"].get<std::uint64_t>());
  EXPECT_EQ(j["end"]["stalls"]["threshold_ms"], 20.0);
}

TEST(Ttcp, StallThresholdIsADurationWithTheOldMsSpellingKept) {
  auto [t, r] = transfer({"--json", "--stall-threshold", "0.1s"}, {"-n", "10", "--json", "--stall-threshold", "5ms"});
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["end"]["stalls"]["threshold_ms"], 5.0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["end"]["stalls"]["threshold_ms"], 100.0);
  auto [t2, r2] = transfer({}, {"-n", "10", "--json", "--stall-ms", "7"});
  ASSERT_EQ(t2.code, 0) << t2.err;
  EXPECT_EQ(nlohmann::json::parse(t2.out)["end"]["stalls"]["threshold_ms"], 7.0);
  expect_one_line_error(run_cli({"-t", "-s", "--stall-threshold", "soon", "h"}), kExitUsage, "--stall-threshold");
  expect_one_line_error(run_cli({"-t", "-s", "--stall-threshold", "2min", "h"}), kExitUsage, "--stall-threshold");
  expect_one_line_error(run_cli({"-t", "-s", "--stall-threshold", "61s", "h"}), kExitUsage, "--stall-threshold");
  expect_one_line_error(run_cli({"-t", "-s", "--stall-threshold", "5ms", "--stall-ms", "5", "h"}), kExitUsage,
                        "--stall");
}

TEST(Ttcp, ForeverIsAReceiverOption) {
  expect_one_line_error(run_cli({"-t", "-s", "--forever", "h"}), kExitUsage, "--forever is a receiver");
}

TEST(Ttcp, VerifyNeedsThePattern) {
  expect_one_line_error(run_cli({"-t", "--verify", "h"}), kExitUsage, "--verify checks the -s pattern");
}

TEST(Ttcp, PatternIsPositionDependent) {
  std::vector<std::byte> a(64), b(61);
  ttcp::fill_pattern(a, 0);
  ttcp::fill_pattern(b, 3);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin() + 3));
  EXPECT_NE(a[0], a[8]);
}

}  // namespace
}  // namespace ackstall::tools
