// ackstall watch: its flags' errors, and a real loopback transfer read through it (inet_diag:
// no root needed).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <sstream>
#include <thread>
#include <vector>

#include "cli_runner.h"

namespace ackstall::tools {
namespace {

using namespace std::chrono_literals;

TEST(Watch, BadInputIsOneLineAndExitTwo) {
  expect_one_line_error(run_ackstall({"watch", "--intervall", "1s"}), kExitUsage, "did you mean --interval?");
  expect_one_line_error(run_ackstall({"watch", "--interval", "0"}), kExitUsage, "--interval");
  expect_one_line_error(run_ackstall({"watch", "--duration", "soon"}), kExitUsage, "--duration");
  expect_one_line_error(run_ackstall({"watch", "--flow", "1.2.3"}), kExitUsage, "not an IPv4 or IPv6 address");
  expect_one_line_error(run_ackstall({"watch", "--port", "70000"}), kExitUsage, "--port");
  expect_one_line_error(run_ackstall({"watch", "--cgroup", "/no/such/cgroup", "--duration", "1ms"}), kExitUsage,
                        "--cgroup /no/such/cgroup");
  expect_one_line_error(run_ackstall({"watch", "--cgroup", "/proc", "--duration", "1ms"}), kExitUsage,
                        "not a cgroup v2 directory");
}

// --events without tracefs (a mount that is none, or no root): one line, and the sampling goes on.
TEST(Watch, EventsWithoutTracefsFallBackToSampling) {
  const auto r = run_ackstall({"watch", "--events", "--tracefs", "/no/such/tracefs", "--duration", "150ms"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.err, "ackstall: watch --events: no tracefs at /no/such/tracefs (no /no/such/tracefs/instances); "
                   "sampling only\n");
  EXPECT_NE(r.out.find("summary: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("events: "), std::string::npos) << r.out;  // no event counts: no events were read
}

// A loopback sender whose receiver never reads: after its buffers fill, it waits on the window.
struct StuckTransfer {
  int client = -1, server = -1;
  std::uint16_t client_port = 0, server_port = 0;
  StuckTransfer() {
    const int l = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(l, 1), 0);
    ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
    server_port = ntohs(a.sin_port);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    server = ::accept(l, nullptr, nullptr);
    ::close(l);
    sockaddr_in c{};
    len = sizeof c;
    ::getsockname(client, reinterpret_cast<sockaddr*>(&c), &len);
    client_port = ntohs(c.sin_port);
    ::fcntl(client, F_SETFL, O_NONBLOCK);
    const std::vector<char> buf(65536, 'x');
    for (int full = 0; full < 20;) {
      if (::send(client, buf.data(), buf.size(), MSG_NOSIGNAL) < 0) {
        ++full;
        std::this_thread::sleep_for(5ms);
      }
    }
  }
  ~StuckTransfer() {
    ::close(client);
    ::close(server);
  }
};

TEST(Watch, JsonLinesNameTheReceiversWindow) {
  const StuckTransfer t;
  const auto r = run_ackstall({"watch", "--port", std::to_string(t.server_port), "--interval", "100ms",
                               "--duration", "400ms", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::istringstream lines(r.out);
  int intervals = 0, summaries = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["local"] != "127.0.0.1:" + std::to_string(t.client_port)) continue;
    EXPECT_EQ(j["role"], "sender");
    EXPECT_EQ(j["problem"], "receiver_window") << line;
    EXPECT_EQ(j["severity"], "major") << line;
    EXPECT_EQ(j["accounts"][0]["cause"], "receiver_window") << line;
    EXPECT_FALSE(j["fixes"].empty());
    (j.contains("summary") ? summaries : intervals)++;
  }
  EXPECT_GE(intervals, 3) << r.out;
  EXPECT_EQ(summaries, 1) << r.out;
}

TEST(Watch, TableAndSummaryInWords) {
  const StuckTransfer t;
  const auto r = run_ackstall({"watch", "--flow", "127.0.0.1:" + std::to_string(t.client_port), "--duration",
                               "300ms"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("LIMIT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("receiver_window"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("where the time went:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: limited by the receiver's window"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fix 1:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ackstall::tools
