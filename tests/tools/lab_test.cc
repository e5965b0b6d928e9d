// ackstall lab: real namespaces (root only; skipped with a message otherwise). Bounded: each
// transfer is short; the whole file runs in well under a minute.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/net/afd_emulator.h"
#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/receive_tuning.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/ttcp/pattern.h"
#include "ackstall/cli/run.h"
#include "cli_runner.h"
#include "ackstall/lab/netns.h"
#include "temp_dir.h"

extern char** environ;

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
    if (!lab::run_command({"ip", "-V"})) GTEST_SKIP() << "iproute2 'ip' not found; skipped";
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
  const auto rt = run_cli({"run", "--realtime", "maybe", "--", "-n", "1"});
  EXPECT_EQ(rt.code, kExitUsage) << rt.err;
  const auto x = run_cli({"run", "--", "-r"});
  EXPECT_EQ(x.code, kExitUsage) << x.err;
  EXPECT_NE(x.err.find("transmitter flags"), std::string::npos) << x.err;
}

TEST(LabNoRoot, RateAndLineRate) {
  EXPECT_EQ(lab::parse_rate("100mbit"), 100'000'000);
  EXPECT_FALSE(lab::parse_rate("100"));
  EXPECT_NEAR(lab::line_rate_bytes_per_s(100'000'000, true) / 1e6, 11.77, 0.01);  // §7 line rate
}

TEST_F(Lab, UpRunDownAndStaleCleanup) {
  auto up = run_cli({"up", "--ack-mode", "classic"});
  ASSERT_EQ(up.code, 0) << up.err;
  EXPECT_TRUE(ns_exists("ackstall-a") && ns_exists("ackstall-b"));
  // A second up finds the first as stale, removes it and starts clean.
  auto again = run_cli({"up"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("removing a stale lab"), std::string::npos) << again.out;

  auto run = run_cli({"run", "--ack-mode", "classic", "--realtime", "off", "--", "-n", "300", "-l", "8192", "--chunk", "seed",
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

TEST_F(Lab, Ipv6TransferOverTheLab) {
  auto up = run_cli({"up", "--ack-mode", "classic"});
  ASSERT_EQ(up.code, 0) << up.err;
  auto run = run_cli({"run", "--ipv6", "--realtime", "off", "--", "-n", "200", "-l", "8192", "--verify", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["receiver"]["end"]["sum_received"]["bytes"], 200 * 8192);
  EXPECT_EQ(j["receiver"]["start"]["connected"][0]["local"].get<std::string>().rfind("[fd77::2]:", 0), 0u) << j.dump();
  EXPECT_EQ(j["transmitter"]["start"]["connected"][0]["local"].get<std::string>().rfind("[fd77::1]:", 0), 0u) << j.dump();
  EXPECT_EQ(j["transmitter"]["end"]["tcp_mss"], 1428);  // 1500 - 40 (IPv6) - 20 (TCP) - 12 (timestamps)
}

// The processes in network namespace `ns` (same inode as /run/netns/NS).
std::vector<pid_t> pids_in(const char* ns) {
  std::vector<pid_t> pids;
  std::error_code ec;
  struct stat want{};
  if (::stat((std::string("/run/netns/") + ns).c_str(), &want) != 0) return pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st{};
    if (::stat((e.path() / "ns" / "net").c_str(), &st) == 0 && st.st_ino == want.st_ino) pids.push_back(std::stoi(name));
  }
  return pids;
}

// Ended, or a zombie (it holds no namespace then).
bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
  std::string l;
  std::getline(st, l);
  const auto close = l.rfind(')');
  return close == std::string::npos || l.substr(close + 2, 1) == "Z";
}

// A listening TCP socket on PORT (any address) in the calling thread's namespace. Its accept()
// gives up after 20 s (SO_RCVTIMEO, socket(7)): a client that never came fails the test instead
// of hanging it.
int listen_on(std::uint16_t port) {
  const int ls = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const timeval limit{20, 0};
  ::setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::bind(ls, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(ls, 1);
  return ls;
}

// ackstall-b's address on PORT.
sockaddr_in lab_b(std::uint16_t port) {
  sockaddr_in b{};
  b.sin_family = AF_INET;
  b.sin_port = htons(port);
  ::inet_pton(AF_INET, lab::kAddrB, &b.sin_addr);
  return b;
}

// SERVE(listening socket on PORT) on a thread in ackstall-b, then CLIENT(a new socket, b's address
// on PORT) on a thread in ackstall-a (a thread's network namespace is its own); what CLIENT
// returned, or -1 where a namespace could not be entered.
double across_lab(std::uint16_t port, const std::function<void(int)>& serve,
                  const std::function<double(int, const sockaddr_in&)>& client) {
  std::promise<void> listening;
  std::thread server([&] {
    if (!lab::enter_namespace(lab::kNsB)) return listening.set_value();
    const int ls = listen_on(port);
    listening.set_value();
    serve(ls);
    ::close(ls);
  });
  listening.get_future().wait();
  double out = -1;
  std::thread client_thread([&] {
    if (!lab::enter_namespace(lab::kNsA)) return;
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    out = client(s, lab_b(port));
    ::close(s);
  });
  client_thread.join();
  server.join();
  return out;
}

bool connect_to(int s, const sockaddr_in& b) {
  return ::connect(s, reinterpret_cast<const sockaddr*>(&b), sizeof b) == 0;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Milliseconds a TCP connect from ackstall-a to ackstall-b takes: one round trip (SYN, SYN-ACK).
double connect_ms(std::uint16_t port) {
  return across_lab(
      port,
      [](int ls) {
        const int c = ::accept(ls, nullptr, nullptr);
        if (c >= 0) ::close(c);
      },
      [](int s, const sockaddr_in& b) {
        const auto t0 = std::chrono::steady_clock::now();
        return connect_to(s, b) ? ms_since(t0) : -1.0;
      });
}

TEST_F(Lab, RttAddsAMiddleHostWithADelayLineAndDownStopsIt) {
  auto up = run_cli({"up", "--rtt", "40ms"});
  ASSERT_EQ(up.code, 0) << up.err;
  EXPECT_NE(up.out.find("via ackstall-m (delay line 40ms round trip"), std::string::npos) << up.out;
  ASSERT_TRUE(ns_exists("ackstall-m"));
  const auto line = pids_in("ackstall-m");
  ASSERT_EQ(line.size(), 1u) << "the delay line runs in ackstall-m";
  (void)connect_ms(5990);  // ARP resolved: the next connect is one round trip
  // The floor of three connects: the delay line is a user-space process, and on a loaded host one
  // late wake-up adds its scheduling delay to a single measurement; the floor is the line's delay.
  double rtt = connect_ms(5991);
  for (const std::uint16_t port : {std::uint16_t{5992}, std::uint16_t{5993}}) rtt = std::min(rtt, connect_ms(port));
  EXPECT_GE(rtt, 40.0);
  EXPECT_LT(rtt, 60.0);
  // Data crosses it both ways, byte for byte (checksums offloaded end to end).
  auto run = run_cli({"run", "--realtime", "off", "--", "-n", "200", "-l", "8192", "--verify", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["receiver"]["end"]["sum_received"]["bytes"], 200 * 8192);
  auto down = run_cli({"down"});
  ASSERT_EQ(down.code, 0) << down.err;
  EXPECT_FALSE(ns_exists("ackstall-m") || ns_exists("ackstall-a") || ns_exists("ackstall-b"));
  EXPECT_TRUE(gone(line[0]))
      << "the delay line (pid " << line[0] << ") outlived lab down";
}

// WRITES request/response turns through the lab on PORT: the client in ackstall-a writes SIZE
// bytes (TCP_NODELAY), the server in ackstall-b answers each with one byte. Milliseconds for all
// the turns, or -1.
double reqresp_ms(std::uint16_t port, int writes, std::size_t size) {
  return across_lab(
      port,
      [&](int ls) {
        const int c = ::accept(ls, nullptr, nullptr);
        std::vector<char> buf(size);
        for (int w = 0; c >= 0 && w < writes; ++w) {
          std::size_t got = 0;
          while (got < size) {
            const ssize_t n = ::recv(c, buf.data() + got, size - got, 0);
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
          }
          if (got < size || ::send(c, "r", 1, 0) != 1) break;
        }
        if (c >= 0) ::close(c);
      },
      [&](int s, const sockaddr_in& b) {
        const int one = 1;
        ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!connect_to(s, b)) return -1.0;
        const std::vector<char> req(size, 'q');
        const auto t0 = std::chrono::steady_clock::now();
        char r = 0;
        for (int w = 0; w < writes; ++w) {
          if (::send(s, req.data(), req.size(), 0) != static_cast<ssize_t>(req.size()) ||
              ::recv(s, &r, 1, MSG_WAITALL) != 1) {
            return -1.0;
          }
        }
        return ms_since(t0);
      });
}

// --drop-tails 1: the delay line drops every write's last segment once (lab/tail_drop.h); the
// sender has nothing after it to draw duplicate ACKs and waits for a tail-loss probe or its
// timeout (RFC 8985 §7: with one segment out Linux's probe waits 2 SRTT + 200 ms), so each turn
// of a request/response exchange over a 2 ms path takes a timer's wait, not a round trip.
TEST_F(Lab, DropTailsCostsEachWriteATimersWait) {
  auto plain = run_cli({"up", "--rtt", "2ms"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  const double fast = reqresp_ms(5994, 5, 3000);
  ASSERT_EQ(run_cli({"down"}).code, 0);
  auto up = run_cli({"up", "--rtt", "2ms", "--drop-tails", "1", "--drop-seed", "5"});
  ASSERT_EQ(up.code, 0) << up.err;
  EXPECT_NE(up.out.find("dropping writes' last segments with probability 1 (seed 5)"), std::string::npos) << up.out;
  const double slow = reqresp_ms(5995, 5, 3000);
  ASSERT_GT(fast, 0);
  ASSERT_GT(slow, 0);
  EXPECT_LT(fast, 5 * 50.0) << "5 turns of a 2 ms path";
  EXPECT_GT(slow, 5 * 150.0) << "each turn's tail lost once: a timer's wait each";
}

TEST(LabNoRoot, BadDropTailsIsAUsageError) {
  for (const char* bad : {"1.5", "-0.2", "often", "30%"}) {
    const auto r = run_cli({"up", "--drop-tails", bad});
    EXPECT_EQ(r.code, kExitUsage) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("lab up: bad --drop-tails: '") + bad + "'"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(LabNoRoot, ANegativeDropSeedIsAUsageError) {
  // Refused before any namespace is made (no root needed), not wrapped round to 2^64 - 1.
  for (const char* bad : {"-1", "seven"}) {
    const auto r = run_cli({"up", "--drop-tails", "0.3", "--drop-seed", bad});
    EXPECT_EQ(r.code, kExitUsage) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--drop-seed"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(LabNoRoot, BadRttIsAUsageError) {
  for (const char* bad : {"soon", "0ms", "11s"}) {
    const auto r = run_cli({"up", "--rtt", bad});
    EXPECT_EQ(r.code, kExitUsage) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--rtt"), std::string::npos) << r.err;
  }
}

// --receiver-acks windows: the middle host thins the receiver's ACKs to Windows' rule (every 2nd
// segment, else 200 ms: lab/ack_thinner.h). Today's Cygwin cut (pieces of exactly SO_SNDBUF,
// 128 KiB writes over a 64 KiB quota) waits for a held ACK on each piece; the patched cut
// (robust) does not (docs/VALIDATION.md §7). Timestamps off, as Windows sends (MSS 1460): a
// piece is 45 segments, odd, so its last one's ACK is held.
TEST_F(Lab, WindowsLikeReceiverStallsTodaysCygwinCutAndNotThePatchedOne) {
  auto up = run_cli({"up", "--receiver-acks", "windows", "--timestamps", "off"});
  ASSERT_EQ(up.code, 0) << up.err;
  EXPECT_NE(up.out.find("thinned to Windows' rule"), std::string::npos) << up.out;
  ASSERT_EQ(pids_in("ackstall-m").size(), 1u) << "the thinner runs in ackstall-m, also without --rtt";
  const auto afd = [](const std::string& cut) {
    auto run = run_cli({"run", "--realtime", "off", "--", "-l", "131072", "-n", "10", "-b", "65536",
                        "--emulate-afd", "--chunk", cut, "--verify", "--json"});
    EXPECT_EQ(run.code, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["receiver"]["end"]["sum_received"]["bytes"], 10 * 131072) << cut;
    return j["transmitter"]["end"]["afd"];
  };
  const auto today = afd("cygwin");
  const auto patched = afd("robust");
  // A ~200 ms hold per piece, two pieces a write (docs/VALIDATION.md §7).
  EXPECT_GE(today["stalls"].get<int>(), 16) << today.dump();
  EXPECT_GE(today["waited_seconds"].get<double>(), 16 * 0.18) << today.dump();
  // None. 10 writes are 898 segments, even: with an odd total (6 writes: 539) the transfer's
  // last ACK is held too, one 200 ms wait at the end.
  EXPECT_LE(patched["stalls"].get<int>(), 1) << patched.dump();
  EXPECT_LT(patched["waited_seconds"].get<double>(), 0.35) << patched.dump();
  auto down = run_cli({"down"});
  ASSERT_EQ(down.code, 0) << down.err;
  EXPECT_FALSE(ns_exists("ackstall-m"));
}

TEST(LabNoRoot, BadReceiverAcksIsAUsageError) {
  const auto r = run_cli({"up", "--receiver-acks", "solaris"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("--receiver-acks"), std::string::npos) << r.err;
}

TEST_F(Lab, JumboFrames) {
  auto up = run_cli({"up", "--mtu", "9000", "--ack-mode", "classic"});
  ASSERT_EQ(up.code, 0) << up.err;
  // The seed switches itself off where MSS >= the quota, and says so.
  auto run = run_cli({"run", "--realtime", "off", "--", "-l", "65536", "-n", "20", "--emulate-afd=8192", "--chunk", "seed",
                      "--verify"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("chunk=seed (mss 8948,"), std::string::npos) << run.out;  // 9000 - 40 - 12
  EXPECT_NE(run.out.find("note: seed: MSS 8948 >= SO_SNDBUF 8192"), std::string::npos) << run.out;
  // 26844-byte writes (3 segments) over the 8192 quota wait for the delayed ACK every write with
  // any split; robust allowed to raise SO_SNDBUF (KB823764) raises the quota and runs without a
  // stall (measured: 0.61 MB/s, 150 stalls in 150 writes -> 12.4 MB/s, 0 stalls; the same 12.42
  // MB/s with the quota raised to 4 MSS as with 64 KiB, 2026-12-04).
  auto raised = run_cli({"run", "--realtime", "off", "--", "-l", "26844", "-n", "40", "--emulate-afd=8192", "--chunk",
                         "robust", "--raise-sndbuf", "--json"});
  ASSERT_EQ(raised.code, 0) << raised.err;
  const auto j = nlohmann::json::parse(raised.out);
  // Jumbo MSS: 16 MSS is above the 64 KiB cap, so robust raises to 4 MSS (core::ChunkPolicy).
  EXPECT_EQ(j["transmitter"]["end"]["afd"]["final_quota"], 4 * 8948) << raised.out;
  EXPECT_LE(j["transmitter"]["end"]["afd"]["stalls"].get<int>(), 1) << raised.out;
  // MSS < quota < 2 MSS: robust raises to 4 MSS only where the peer's window holds it; the
  // lab's Linux receiver offers about 64 KB, read from TCP_INFO tcpi_snd_wnd (docs/STACKS.md §8).
  auto between = run_cli({"run", "--realtime", "off", "--", "-l", "65536", "-n", "20", "--emulate-afd=16384", "--chunk",
                          "robust", "--raise-sndbuf", "--json"});
  ASSERT_EQ(between.code, 0) << between.err;
  const auto k = nlohmann::json::parse(between.out);
  EXPECT_EQ(k["transmitter"]["end"]["afd"]["final_quota"], 4 * 8948) << between.out;
  EXPECT_EQ(k["receiver"]["end"]["stalls"]["count"].get<int>(), 0) << between.out;
}

TEST_F(Lab, TinyQueueDropsFixedSizesStillByteExact) {
  ASSERT_EQ(run_cli({"up", "--queue-bytes", "4000", "--rate", "20mbit"}).code, 0);
  for (const char* len : {"1", "1447", "7300", "65537"}) {
    auto r = run_cli({"run", "--", "--time", "0.4", "-l", len, "--verify", "--chunk", "seed"});
    ASSERT_EQ(r.code, 0) << len << ": " << r.err;
    EXPECT_NE(r.out.find("match the pattern"), std::string::npos) << r.out;
  }
}

// Packets the lab's shaper dropped so far ("dropped N" of `tc -s qdisc show`), or -1.
long shaper_drops() {
  FILE* p = ::popen("ip netns exec ackstall-a tc -s qdisc show dev ackstall-va 2>/dev/null", "r");
  if (p == nullptr) return -1;
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) text += buf;
  ::pclose(p);
  std::smatch m;
  static const std::regex re(R"(dropped (\d+))");
  return std::regex_search(text, m, re) ? std::stol(m[1].str()) : -1;
}

// Random write sizes (issue 4) through the tiny queue: the ttcp tool writes fixed -l buffers,
// so this drives the net layer itself across the lab: ChunkedSender (seed policy), plain and over
// the emulated 8192-byte quota, sending `sizes` (fixed seed: the same sizes every run) of the
// --verify pattern; a reader in ackstall-b checks every byte. Returns "" or what went wrong.
std::string random_size_transfer(const std::vector<std::size_t>& sizes, bool emulate_afd,
                                 std::uint16_t port, std::uint64_t& received) {
  std::uint64_t total = 0;
  for (auto n : sizes) total += n;
  std::promise<std::string> listening;
  auto ready = listening.get_future();
  std::string rx_error, tx_error;
  received = 0;
  std::thread rx([&] {
    if (auto r = lab::enter_namespace(lab::kNsB); !r) return listening.set_value(r.error().message());
    auto l = net::listen_tcp({lab::kAddrB, port}, 1);
    if (!l) return listening.set_value("listen: " + l.error().message());
    listening.set_value("");
    if (auto w = net::wait_readable(l->socket, 15000); !w || !*w) {
      rx_error = "no connection within 15 s";
      return;
    }
    auto c = net::accept_tcp(l->socket);
    if (!c) {
      rx_error = "accept: " + c.error().message();
      return;
    }
    std::vector<std::byte> buf(1 << 17), want(1 << 17);
    for (;;) {
      if (auto w = net::wait_readable(*c, 30000); !w || !*w) {
        rx_error = "receiver: nothing for 30 s";
        return;
      }
      auto r = net::recv_some(*c, buf);
      if (!r) {
        rx_error = "recv: " + r.error().message();
        return;
      }
      if (r->eof) return;
      ttcp::fill_pattern(std::span(want).first(r->bytes), received);
      if (std::memcmp(want.data(), buf.data(), r->bytes) != 0) {
        rx_error = "mismatch in the " + std::to_string(r->bytes) + " bytes at offset " + std::to_string(received);
        return;
      }
      received += r->bytes;
    }
  });
  if (std::string e = ready.get(); !e.empty()) {
    rx.join();
    return e;
  }
  std::thread tx([&] {
    if (auto r = lab::enter_namespace(lab::kNsA); !r) {
      tx_error = r.error().message();
      return;
    }
    auto s = net::connect_tcp({lab::kAddrB, port}, std::chrono::milliseconds(5000));
    if (!s) {
      tx_error = "connect: " + s.error().message();
      return;
    }
    std::unique_ptr<net::AfdSocketOps> afd;
    net::SocketOps* ops = &net::system_socket_ops();
    if (emulate_afd) {
      auto a = net::AfdSocketOps::attach(net::system_socket_ops(), s->native(), {});
      if (!a) {
        tx_error = "attach: " + a.error().message();
        return;
      }
      afd = std::move(*a);
      ops = afd.get();
    }
    net::ChunkedSender sender(*ops, s->native(), {core::PolicyKind::seed, 0});
    std::vector<std::byte> buf;
    std::uint64_t offset = 0;
    for (const std::size_t n : sizes) {
      buf.resize(n);
      ttcp::fill_pattern(buf, offset);
      for (std::size_t done = 0; done < n;) {
        const core::ByteSlice slice{buf.data() + done, n - done};
        auto r = sender.send(std::span(&slice, 1));
        if (!r) {
          tx_error = "send after " + std::to_string(offset + done) + " bytes: " + r.error().message();
          return;
        }
        done += r->bytes;
      }
      offset += n;
    }
    if (afd) {
      if (auto r = afd->wait_all_acked(30000); !r) {
        tx_error = "wait_all_acked: " + r.error().message();
        return;
      }
    }
    (void)net::shutdown_send(*s);
    std::byte sink[64];
    for (;;) {  // until the reader closes: everything was delivered
      if (auto w = net::wait_readable(*s, 30000); !w || !*w) {
        tx_error = "the reader did not close within 30 s";
        return;
      }
      auto r = net::recv_some(*s, sink);
      if (!r || r->eof) return;
    }
  });
  tx.join();
  rx.join();
  if (!tx_error.empty()) return "transmitter: " + tx_error;
  if (!rx_error.empty()) return "receiver: " + rx_error;
  if (received != total) return std::to_string(received) + " of " + std::to_string(total) + " bytes";
  return {};
}

TEST_F(Lab, TinyQueueDropsRandomWriteSizesByteExact) {
  ASSERT_EQ(run_cli({"up", "--queue-bytes", "4000", "--rate", "20mbit"}).code, 0);
  std::mt19937_64 rng(20060921);  // fixed seed: the same 300 sizes every run
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 300; ++i) {
    const unsigned bits = static_cast<unsigned>(rng() % 17);  // every size class 1 .. 65536
    sizes.push_back(1 + static_cast<std::size_t>(rng() % (std::uint64_t{1} << bits)));
  }
  std::uint64_t got = 0;
  const long drops_before = shaper_drops();
  EXPECT_EQ(random_size_transfer(sizes, false, 5071, got), "");
  const long drops_plain = shaper_drops();
  EXPECT_GT(drops_plain, drops_before) << "the 4000-byte queue should have dropped packets";
  EXPECT_EQ(random_size_transfer(sizes, true, 5072, got), "") << "over the emulated AFD quota";
  std::cout << "[          ] random sizes: " << got << " bytes x 2 byte-exact; shaper dropped "
            << drops_plain - drops_before << " packets in the plain transfer, "
            << shaper_drops() - drops_plain << " in the emulated-quota one\n";
}

// The ackstall binary of this build (tests/tools/CMakeLists.txt: ACKSTALL_EXE, built before
// lab_test), or "" if it is missing.
std::string ackstall_exe() {
  std::error_code ec;
  return std::filesystem::exists(ACKSTALL_EXE, ec) ? std::string(ACKSTALL_EXE) : std::string();
}

// Ctrl-C (SIGINT) or kill (SIGTERM) in the middle of `ackstall lab matrix`: the namespaces go,
// exit 130 / 143, one line saying so.
TEST_F(Lab, InterruptedMatrixRemovesTheLab) {
  const std::string exe = ackstall_exe();
  if (exe.empty()) GTEST_SKIP() << "the ackstall binary is not built next to lab_test; skipped";
  for (const int sig : {SIGINT, SIGTERM}) {
    const TempDir dir;
    const std::string err_path = (dir / "lab_interrupt.err").string();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {exe, "lab", "matrix", "--lengths", "15928", "--cases", "unpatched",
                                     "--runs", "30", "--time", "1"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    ASSERT_EQ(::posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    // Wait until the lab is up and a transfer is running.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (!(ns_exists("ackstall-a") && ns_exists("ackstall-b")) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ASSERT_EQ(::kill(pid, sig), 0);
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 500 && done == 0; ++i) {  // at most 10 s
      done = ::waitpid(pid, &status, WNOHANG);
      if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (done == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "lab matrix did not exit within 10 s of signal " << sig;
    }
    std::ifstream ef(err_path);
    const std::string err((std::istreambuf_iterator<char>(ef)), std::istreambuf_iterator<char>());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << ": " << err;
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << err;
    EXPECT_NE(err.find(sig == SIGINT ? "interrupted by SIGINT; lab removed" : "interrupted by SIGTERM; lab removed"),
              std::string::npos)
        << err;
    EXPECT_FALSE(ns_exists("ackstall-a") || ns_exists("ackstall-b"));
  }
}

// scan -i inside the receiver's namespace while the lab transfers: it sees the stalls the sender
// counts, and Ctrl-C ends it with the full report (and libpcap's drop counters).
TEST_F(Lab, LiveScanSeesTheStallsTheSenderCounts) {
  const std::string exe = ackstall_exe();
  if (exe.empty()) GTEST_SKIP() << "the ackstall binary is not built next to lab_test; skipped";
  auto up = run_cli({"up", "--ack-mode", "classic"});
  ASSERT_EQ(up.code, 0) << up.err;
  const TempDir dir;
  const std::string out_path = (dir / "live.txt").string();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> args = {"ip", "netns", "exec", "ackstall-b", exe, "scan", "-i", "ackstall-vb",
                                   "--filter", "tcp port 5001"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  ASSERT_EQ(::posix_spawnp(&pid, "ip", &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  const auto read_out = [&] {
    std::ifstream in(out_path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  // The capture runs once it says so.
  for (int i = 0; i < 500 && read_out().find("capturing on ackstall-vb") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_NE(read_out().find("capturing on ackstall-vb"), std::string::npos) << read_out();
  // The seed's row: 15928-byte writes over an 8 KiB quota stall once per write.
  auto run = run_cli({"run", "--realtime", "off", "--", "-l", "15928", "-n", "20", "--emulate-afd", "--json"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_EQ(run.code, 0) << run.err;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string out = read_out();
  // Each stall printed as found, then the report with the same count and libpcap's counters.
  const std::regex live_line("\\nstall [0-9:.]+ UTC  10\\.77\\.0\\.1:[0-9]+ -> 10\\.77\\.0\\.2:5001 ");
  const auto live = std::distance(std::sregex_iterator(out.begin(), out.end(), live_line), std::sregex_iterator());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("stalls: ([0-9]+) \\(")) ) << out;
  EXPECT_EQ(std::stol(m[1].str()), live) << out;
  EXPECT_NE(out.find("dropped by libpcap/the kernel, 0 by the interface"), std::string::npos) << out;
  EXPECT_NE(out.find(", 0 dropped by libpcap"), std::string::npos) << out;
  const auto sender_stalls = nlohmann::json::parse(run.out)["transmitter"]["end"]["afd"]["stalls"].get<int>();
  EXPECT_GE(sender_stalls, 5);  // most writes stall (14-20 of 20 measured, fewer under load)
  EXPECT_LE(std::abs(static_cast<int>(live) - sender_stalls), 2) << out;
}

TEST_F(Lab, MatrixSmallIsMedianTableJsonCsvAndCleansUp) {
  const TempDir dir;
  const std::string json = (dir / "lab_matrix.json").string();
  const std::string csv = (dir / "lab_matrix.csv").string();
  auto r = run_cli({"matrix", "--ack-mode", "classic", "--lengths", "8192,15928", "--cases",
                    "unpatched,chunked", "--runs", "1", "--time", "0.5", "--json", json, "--csv", csv});
  EXPECT_NE(r.out.find("SCHED_FIFO threads"), std::string::npos) << r.out;
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

// --capture-dir: one pcapng per cell, taken on the receiver's veth while the cell's runs go;
// the file holds both runs' connections (what bench/lab_vs_sim.sh reads the reader latency from).
TEST_F(Lab, MatrixCapturesEachCellOnTheReceiversVeth) {
  if (!lab::run_command({"dumpcap", "-v"})) GTEST_SKIP() << "dumpcap not found; skipped";
  const TempDir dir;
  const std::string json = (dir / "m.json").string();
  auto r = run_cli({"matrix", "--ack-mode", "classic", "--lengths", "15928", "--cases", "unpatched,chunked",
                    "--runs", "2", "--time", "0.3", "--capture-dir", dir.path().string(), "--json", json});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_FALSE(ns_exists("ackstall-a") || ns_exists("ackstall-b"));
  std::ifstream jf(json);
  const auto j = nlohmann::json::parse(jf);
  ASSERT_EQ(j["rows"].size(), 2u);
  for (const auto& row : j["rows"]) {
    const std::string cap = row["capture"];
    EXPECT_EQ(cap, (dir / (std::to_string(row["len"].get<int>()) + "-" + row["case"].get<std::string>() + ".pcapng")).string());
    // The cell's two runs: two connections from the sender that carried data, read by scan.
    const auto scan = run_ackstall({"scan", "--json", cap});
    ASSERT_EQ(scan.code, 0) << scan.err;
    const auto sj = nlohmann::json::parse(scan.out);
    int transfers = 0;
    for (const auto& flow : sj["flows"])
      for (const auto& d : flow["directions"])
        if (d["data_segments"].get<int>() > 20) ++transfers;
    EXPECT_EQ(transfers, 2) << scan.out.substr(0, 2000);
  }
  const auto missing = run_cli({"matrix", "--lengths", "8192", "--cases", "unpatched", "--capture-dir",
                                (dir / "no-such-dir").string()});
  EXPECT_EQ(missing.code, kExitUsage) << missing.err;
  EXPECT_NE(missing.err.find("--capture-dir"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ackstall::tools
