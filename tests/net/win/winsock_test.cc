// Winsock-specific behaviour of the net layer: error mapping, the would-block status, the
// dont_wait emulation, the probe's fallbacks (what Wine exercises: no SIO_TCP_INFO, no
// TCP_MAXSEG) and SO_SNDBUF tracking. Runs under Wine in scripts/test-windows.sh.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "../../../src/net/win/winsock.h"  // first: Winsock headers in their order
#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/net/path_probe.h"
#include "ackstall/net/tcp_socket.h"
#include "../socket_pair.h"
#include "../fake_socket_ops.h"

namespace ackstall::net {
namespace {

using namespace std::chrono_literals;

TEST(Winsock, ErrorsMapOntoTheSameErrnoNames) {
  EXPECT_EQ(win::errno_from_wsa(WSAEWOULDBLOCK), EWOULDBLOCK);
  EXPECT_EQ(win::errno_from_wsa(WSAECONNRESET), ECONNRESET);
  EXPECT_EQ(win::errno_from_wsa(WSAECONNABORTED), ECONNABORTED);
  EXPECT_EQ(win::errno_from_wsa(WSAECONNREFUSED), ECONNREFUSED);
  EXPECT_EQ(win::errno_from_wsa(WSAETIMEDOUT), ETIMEDOUT);
  EXPECT_EQ(win::errno_from_wsa(WSAEINTR), EINTR);
  EXPECT_EQ(win::errno_from_wsa(WSAENOPROTOOPT), ENOPROTOOPT);
  EXPECT_EQ(win::errno_from_wsa(WSAESHUTDOWN), EPIPE);
  const Error unknown = win::os_error("WSAIoctl", WSASYSNOTREADY).value();
  EXPECT_EQ(unknown.code, EIO);
  EXPECT_EQ(unknown.message(), "WSAIoctl: WSA error 10091");
  EXPECT_EQ((Error{"WSASend", ECONNRESET, {}}).message(), "WSASend: Connection reset by peer");
}

TEST(Winsock, SendToAClosedPeerIsAnError) {
  Pair p = connected_pair();
  p.server.close();
  ChunkedSender sender(system_socket_ops(), p.client.native());
  std::vector<std::byte> data(4096);
  const core::ByteSlice s{data.data(), data.size()};
  Result<SendOutcome> r = SendOutcome{};
  for (int i = 0; i < 100 && r; ++i) {
    r = sender.send({&s, 1});
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().call, "WSASend");
  EXPECT_TRUE(r.error().code == ECONNRESET || r.error().code == ECONNABORTED ||
              r.error().code == EPIPE)
      << r.error().message();
}

// WSAEWOULDBLOCK is a status, and dont_wait on a blocking socket (Winsock has no MSG_DONTWAIT)
// leaves the socket blocking afterwards.
TEST(Winsock, DontWaitOnABlockingSocketWouldBlockThenStaysBlocking) {
  Pair p = connected_pair();
  Syscalls calls(system_socket_ops());
  std::vector<std::byte> data(64 * 1024);
  const core::ByteSlice s{data.data(), data.size()};
  bool would_block = false;
  for (int i = 0; i < 10000 && !would_block; ++i) {
    auto r = calls.send(p.client.native(), {&s, 1}, SendFlags::dont_wait);
    ASSERT_TRUE(r) << r.error().message();
    would_block = r->would_block;
  }
  EXPECT_TRUE(would_block);
  auto nb = calls.is_nonblocking(p.client.native());
  ASSERT_TRUE(nb);
  EXPECT_FALSE(*nb);
  // Blocking for real: drain the peer in a thread, then a blocking send completes.
  std::thread drain([&] {
    std::vector<std::byte> buf(256 * 1024);
    for (;;) {
      auto r = recv_some(p.server, buf);
      if (!r || r->eof || r->bytes == 0) return;
    }
  });
  auto r = calls.send(p.client.native(), {&s, 1}, SendFlags::none);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->would_block);
  EXPECT_GT(r->bytes, 0u);
  p.client.close();
  drain.join();
}

// Every value says where it came from. Under Wine (8.0) SIO_TCP_INFO and TCP_MAXSEG fail, so
// the MSS is the seed's fallback (interface MTU - 40) and timestamps are assumed off.
TEST(Winsock, ProbeSaysWhereEachValueCameFrom) {
  Pair p = connected_pair();
  ChunkedSender sender(system_socket_ops(), p.client.native());
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 32768));
  Syscalls calls(system_socket_ops());
  const PathReport r = probe_path(calls, p.client.native());
  std::printf("mtu %lld (%s)\nmss %lld (%s)\ntimestamps %d (%s)\nsndbuf %lld (%s)\n",
              static_cast<long long>(r.mtu.value), r.mtu.source.c_str(),
              static_cast<long long>(r.mss.value), r.mss.source.c_str(),
              r.timestamps.value ? 1 : 0, r.timestamps.source.c_str(),
              static_cast<long long>(r.sndbuf.value), r.sndbuf.source.c_str());
  EXPECT_TRUE(r.stream);
  // SO_SNDBUF: Winsock (and Wine) report the quota as set.
  EXPECT_EQ(r.sndbuf.value, 32768);
  EXPECT_EQ(r.sndbuf.provenance, Provenance::measured);
  EXPECT_EQ(r.sndbuf.source, "getsockopt(SO_SNDBUF)");
  EXPECT_GE(r.mtu.value, kMtuFloor);
  if (r.mtu.provenance == Provenance::measured) {
    EXPECT_EQ(r.mtu.source, "GetAdaptersAddresses Mtu of " + r.interface);
  }
  if (r.tcp_info_snd_mss && *r.tcp_info_snd_mss > 0) {  // Windows 10 1703+
    EXPECT_EQ(r.mss.provenance, Provenance::measured);
    EXPECT_EQ(r.mss.source, "SIO_TCP_INFO TCP_INFO_v0.Mss");
  } else if (!r.tcp_maxseg) {  // Wine: the seed's way
    EXPECT_EQ(r.mss.provenance, Provenance::fallback);
    EXPECT_EQ(r.mss.value, r.mtu.value - kIpTcpHeaders);
    EXPECT_EQ(r.mss.source.rfind("fallback: interface MTU - 40", 0), 0u) << r.mss.source;
    EXPECT_EQ(r.timestamps.provenance, Provenance::fallback);
    EXPECT_FALSE(r.timestamps.value);
  }
  if (win::running_under_wine()) {
    EXPECT_FALSE(r.tcp_info_snd_mss.has_value());  // the fallback really is what runs here
    EXPECT_EQ(r.interface, "lo");                  // Wine lists Linux's interfaces
  }
  // The sender's policy uses the same numbers.
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->params(), r.params());
}

// The probe names the Windows calls as its sources (path_probe.cc), whatever the ops report.
TEST(Winsock, ProbeSourcesNameTheWindowsCalls) {
  testing::FakeSocketOps ops;
  ops.doubled = false;
  ops.sndbuf_reported = 8192;
  Syscalls calls(ops);
  const PathReport r = probe_path(calls, 3);
  EXPECT_EQ(r.mss.source, "SIO_TCP_INFO TCP_INFO_v0.Mss");
  EXPECT_EQ(r.timestamps.source, "SIO_TCP_INFO TCP_INFO_v0.TimestampsEnabled");
  EXPECT_EQ(r.mtu.source, "GetAdaptersAddresses Mtu of eth0");
  EXPECT_EQ(r.sndbuf.value, 8192);
  EXPECT_EQ(r.sndbuf.source, "getsockopt(SO_SNDBUF)");
}

// SO_SNDBUF tracking through the setsockopt wrapper: the next send sees the new quota.
TEST(Winsock, SetsockoptWrapperRefreshesThePolicy) {
  Pair p = connected_pair();
  ChunkedSender sender(system_socket_ops(), p.client.native(), {core::PolicyKind::seed, 1460});
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 8192));
  auto a = sender.policy();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->params().sndbuf, 8192);
  EXPECT_EQ(a->base_chunk(), 1460 * 5);  // the seed: mss * ((8192 - 1) / mss)
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 65536));
  auto b = sender.policy();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->params().sndbuf, 65536);
  EXPECT_EQ(b->base_chunk(), 1460 * 44);
}

// Following the ideal send backlog on a real Winsock socket: `isb` (seed) and the library's
// default `auto` (robust on Windows) set SO_SNDBUF to it where the ioctl answers (Windows Vista
// SP1+, and Wine 8, which reports a constant 65536), else keep the SO_SNDBUF they have.
void expect_follows_isb(SenderOptions options, core::PolicyKind effective) {
  Pair p = connected_pair();
  options.mss = 1460;
  ChunkedSender sender(system_socket_ops(), p.client.native(), options);
  EXPECT_TRUE(sender.follows_isb());
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 8192));
  const char byte = 'x';
  const core::ByteSlice slice{&byte, 1};
  auto sent = sender.send({&slice, 1});  // the first send queries the ISB
  ASSERT_TRUE(sent) << sent.error().message();
  ASSERT_TRUE(sender.isb_reading());
  const Finding<std::int64_t> r = *sender.isb_reading();
  std::printf("%s: isb %lld (%s)\n", std::string(core::to_string(options.policy)).c_str(),
              static_cast<long long>(r.value), r.source.c_str());
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->effective(), effective);
  if (r.provenance == Provenance::measured && r.value > 0) {
    EXPECT_EQ(policy->params().sndbuf, r.value);
    EXPECT_EQ(sender.isb_applied(), r.value);
  } else {
    EXPECT_EQ(policy->params().sndbuf, 8192);
    EXPECT_NE(r.source.find("WSAIoctl(SIO_IDEAL_SEND_BACKLOG_QUERY)"), std::string::npos) << r.source;
  }
  if (win::running_under_wine()) {  // Wine 8 answers the ioctl with a constant 64 KiB
    EXPECT_EQ(r.provenance, Provenance::measured);
    EXPECT_EQ(r.value, 65536);
  }
}

TEST(Winsock, IsbPolicyFollowsTheIdealSendBacklog) {
  expect_follows_isb(sender_options(*parse_net_policy("isb")), core::PolicyKind::seed);
}

TEST(Winsock, AutoIsRobustAndFollowsTheIdealSendBacklog) {
  expect_follows_isb(SenderOptions{}, core::PolicyKind::robust);  // the library's default
}

}  // namespace
}  // namespace ackstall::net
