// ackstall probe against a loopback listener (in-process through run()).
#include <gtest/gtest.h>

#if defined(__linux__)
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#endif

#include <algorithm>
#include <initializer_list>
#include <numeric>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/net/receive_tuning.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/cli/run.h"
#include "cli_runner.h"

namespace ackstall::tools {
namespace {

struct ProbeTest : ::testing::Test {
  net::Listener listener = *net::listen_tcp({"127.0.0.1", 0});
  std::string target = "127.0.0.1:" + std::to_string(listener.port);
};

TEST_F(ProbeTest, TextReportWithProvenance) {
  const auto r = run_ackstall({"probe", target, "--len", "100000"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("probe " + target + " from 127.0.0.1:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" via lo"), std::string::npos) << r.out;
  for (const char* line : {"\nmss ", "\ntimestamps ", "\nmtu ", "\nsndbuf ", "\nplan "}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
  }
#if defined(_WIN32)
  // Windows: MSS from SIO_TCP_INFO where it exists, else the seed's fallback (Wine: always the
  // fallback, and the reason is printed); the MTU from GetAdaptersAddresses.
  EXPECT_TRUE(r.out.find("measured  SIO_TCP_INFO TCP_INFO_v0.Mss") != std::string::npos ||
              r.out.find("fallback  fallback: interface MTU - 40") != std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("measured  GetAdaptersAddresses Mtu of lo"), std::string::npos) << r.out;
#else
  // tcpi_snd_mss, or tcpi_advmss where Linux holds it at half the window (loopback at connect).
  EXPECT_TRUE(r.out.find("measured  TCP_INFO tcpi_snd_mss") != std::string::npos ||
              r.out.find("measured  TCP_INFO tcpi_advmss") != std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("measured  SIOCGIFMTU on lo"), std::string::npos) << r.out;
#endif
  EXPECT_NE(r.out.find("policy seed"), std::string::npos) << r.out;
}

TEST_F(ProbeTest, JsonPlanFollowsTheSendBufferSet) {
  const auto r = run_ackstall({"probe", target, "--sndbuf", "8192", "--len", "20000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["target"], target);
  EXPECT_EQ(j["interface"], "lo");
  EXPECT_EQ(j["mtu"]["provenance"], "measured");
  EXPECT_EQ(j["sndbuf"]["value"], 8192);  // the value set ...
#if defined(_WIN32)
  EXPECT_EQ(j["raw"]["sndbuf_reported"], 8192);  // ... which Winsock reports as set
  if (j["raw"]["tcp_info_snd_mss"].is_null()) {  // no SIO_TCP_INFO (Wine, Windows < 10 1703)
    EXPECT_EQ(j["mss"]["provenance"], "fallback");
    EXPECT_EQ(j["mss"]["value"], j["mtu"]["value"].get<std::int64_t>() - 40);
  } else {
    EXPECT_EQ(j["mss"]["provenance"], "measured");
  }
#else
  EXPECT_EQ(j["mss"]["provenance"], "measured");
  EXPECT_EQ(j["raw"]["sndbuf_reported"], 16384);  // ... which Linux reports doubled
#endif
  EXPECT_EQ(j["plan"]["policy"], "seed");
  EXPECT_EQ(j["plan"]["sndbuf"], 8192);
  const auto chunks = j["plan"]["chunks"].get<std::vector<std::size_t>>();
  EXPECT_EQ(std::accumulate(chunks.begin(), chunks.end(), std::size_t{0}), 20000u);
  const std::int64_t mss = j["plan"]["mss"];
  if (mss < 4096) {  // the seed chunks only when SO_SNDBUF >= MSS (loopback MSS is ~64K)
    for (std::size_t c : chunks) EXPECT_LT(c, 8192u);
  } else {
    EXPECT_EQ(chunks, std::vector<std::size_t>{20000});
  }
}

TEST_F(ProbeTest, IdealSendBacklogIsReportedAndPolicyIsbUsesIt) {
  const auto r = run_ackstall({"probe", target, "--policy", "isb", "--len", "200000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["plan"]["policy"], "isb");
  const auto& isb = j["ideal_send_backlog"];
  EXPECT_FALSE(isb["source"].get<std::string>().empty());
  if (isb["provenance"] == "measured") {  // Windows (Wine: 65536): SO_SNDBUF follows it
    EXPECT_EQ(j["plan"]["sndbuf"], isb["value"]);
  } else {  // elsewhere: the plain seed policy on the SO_SNDBUF the socket has
#if defined(_WIN32)
    ADD_FAILURE() << "Windows and Wine answer SIO_IDEAL_SEND_BACKLOG_QUERY: " << isb;
#endif
    EXPECT_EQ(j["plan"]["sndbuf"], j["sndbuf"]["value"]);
  }
  const auto text = run_ackstall({"probe", target});
  EXPECT_NE(text.out.find("\nisb "), std::string::npos) << text.out;
}

TEST_F(ProbeTest, PolicyCygwinChunksAtTheSendBuffer) {
  const auto r =
      run_ackstall({"probe", target, "--sndbuf", "8192", "--len", "20000", "--policy", "cygwin", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["plan"]["chunks"], (std::vector<std::size_t>{8192, 8192, 3616}));
}

TEST(Probe, BadTargetIsAUsageError) {
  for (const char* bad : {"localhost:0", "localhost:99999", ":80", "[::1]:8x", "a b", "host:1:2x"}) {
    SCOPED_TRACE(bad);
    expect_one_line_error(run_ackstall({"probe", bad}), kExitUsage, "HOST[:PORT]");
  }
  expect_one_line_error(run_ackstall({"probe"}), kExitUsage, "target");
  expect_one_line_error(run_ackstall({"probe", "127.0.0.1:1", "--policy", "fast"}), kExitUsage,
                        "--policy");
  expect_one_line_error(run_ackstall({"probe", "127.0.0.1:1", "--len", "x"}), kExitUsage, "--len");
  expect_one_line_error(run_ackstall({"probe", "127.0.0.1:1", "--sndbuf", "0"}), kExitUsage,
                        "--sndbuf");
}

TEST(Probe, PortDefaultsToTtcps5001) {
  // Whatever listens on 5001 here (nothing, usually), the target named is port 5001.
  for (const char* target : {"127.0.0.1", "[127.0.0.1]"}) {
    const auto r = run_ackstall({"probe", target, "--timeout-ms", "500"});
    EXPECT_NE((r.out + r.err).find("127.0.0.1:5001"), std::string::npos) << r.out << r.err;
  }
}

#if defined(__linux__)
// A classic receiver (TCP_QUICKACK=0 after each read) delays a lone segment's ACK by Linux's
// 40 ms minimum ATO: --ack-test sees it from the sender's side and names Linux.
TEST(Probe, AckTestSeesALoneSegmentsDelayedAck) {
  auto l = net::listen_tcp({"127.0.0.1", 0});
  ASSERT_TRUE(l) << l.error();
  // An Ethernet-sized MSS, announced in the SYN-ACK: with loopback's 64 KB segments one read
  // opens the window enough for an ACK on read (STACKS §4), and which write waits is chance.
  const int mss = 1460;
  ASSERT_EQ(::setsockopt(l->socket.native(), IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss), 0);
  std::thread reader([&] {
    auto c = net::accept_tcp(l->socket);
    if (!c) return;
    std::vector<std::byte> buf(8192);  // ttcp -r's reads
    for (;;) {
      auto r = net::recv_some(*c, buf);
      if (!r || r->eof) return;
      (void)net::set_quickack(*c, false);
    }
  });
  const auto r = run_ackstall({"probe", "127.0.0.1:" + std::to_string(l->port), "--ack-test", "--rounds", "3", "--json"});
  reader.join();
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out)["ack_test"];
  ASSERT_EQ(j["writes"].size(), 3u);
  // The odd counts' last segment waits (which ones, the reader's timing decides: STACKS §4).
  EXPECT_GE(std::max(j["writes"][0]["median_ms"].get<double>(), j["writes"][2]["median_ms"].get<double>()), 20.0)
      << j.dump();
  EXPECT_GE(j["delayed_ack_ms"].get<double>(), 30.0) << j.dump();
  EXPECT_NE(j["timer_fits"].dump().find("Linux"), std::string::npos) << j.dump();
  EXPECT_NE(j["verdict"].get<std::string>().find("delays"), std::string::npos) << j.dump();
}
#endif

TEST(Probe, RefusedConnectionIsARuntimeFailure) {
  std::uint16_t port = 0;
  {
    auto l = net::listen_tcp({"127.0.0.1", 0});
    ASSERT_TRUE(l);
    port = l->port;
  }
  const std::string target = "127.0.0.1:" + std::to_string(port);
  expect_one_line_error(run_ackstall({"probe", target}), kExitFailure,
                        "probe " + target + ": connect: Connection refused");
}

TEST(Probe, UnresolvableHostIsARuntimeFailure) {
  expect_one_line_error(run_ackstall({"probe", "no-such-host.invalid:80", "--timeout-ms", "1000"}),
                        kExitFailure, "getaddrinfo");
}

TEST(Probe, ListedInHelp) {
  const auto r = run_ackstall({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("probe"), std::string::npos);
}

}  // namespace
}  // namespace ackstall::tools
