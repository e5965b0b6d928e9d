#include "ackstall/net/path_probe.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/tcp_socket.h"
#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

using testing::FakeSocketOps;

TEST(PathProbe, AllMeasured) {
  FakeSocketOps ops;
  Syscalls calls(ops);
  const PathReport r = probe_path(calls, 3);
  EXPECT_EQ(r.mss.value, 1448);
  EXPECT_EQ(r.mss.provenance, Provenance::measured);
  EXPECT_EQ(r.mss.source, "TCP_INFO tcpi_snd_mss");
  EXPECT_TRUE(r.timestamps.value);
  EXPECT_EQ(r.timestamps.provenance, Provenance::measured);
  EXPECT_EQ(r.mtu.value, 1500);
  EXPECT_EQ(r.mtu.provenance, Provenance::measured);
  EXPECT_EQ(r.mtu.source, "SIOCGIFMTU on eth0");
  EXPECT_EQ(r.interface, "eth0");
  EXPECT_EQ(r.sndbuf.value, 8192);
  EXPECT_EQ(r.sndbuf.provenance, Provenance::measured);
  EXPECT_EQ(r.sndbuf_reported, 16384);
  core::SocketParams want{8192, 1448, true, kKernelChargesPerSend};
  want.minshall_nagle = kMinshallNagle;
  EXPECT_EQ(r.params(), want);
}

TcpInfo info_of(std::int64_t snd_mss, std::int64_t advmss, std::int64_t snd_wnd) {
  TcpInfo i;
  i.snd_mss = snd_mss;
  i.advmss = advmss;
  i.snd_wnd = snd_wnd;
  return i;
}

TEST(PathProbe, FullSegmentMssSeesThroughLinuxsHalfWindowBound) {
  // Loopback at connect (measured): the peer's window 65483, snd_mss at its half; advmss 65483.
  const auto bounded = full_segment_mss(info_of(32741, 65483, 65483));
  EXPECT_EQ(bounded.value, 65483);
  EXPECT_NE(bounded.source.find("half-window bound"), std::string::npos) << bounded.source;
  // Once the window grew: snd_mss is the full segment.
  EXPECT_EQ(full_segment_mss(info_of(65483, 65483, 2'000'000)).value, 65483);
  // Ethernet: 1448 far below half the window; a peer announcing less than we do is believed.
  EXPECT_EQ(full_segment_mss(info_of(1448, 1448, 64240)).value, 1448);
  EXPECT_EQ(full_segment_mss(info_of(1348, 1448, 64240)).value, 1348);
  // The window unknown (older kernel, Windows): snd_mss as reported.
  const auto plain = full_segment_mss(info_of(32741, 65483, -1));
  EXPECT_EQ(plain.value, 32741);
  EXPECT_EQ(plain.source.find("advmss"), std::string::npos);
}

TEST(PathProbe, MaxsegWhenTcpInfoFails) {
  FakeSocketOps ops;
  ops.info = tl::unexpected(Error{"getsockopt(TCP_INFO)", ENOPROTOOPT, {}});
  ops.maxseg = 1460;
  Syscalls calls(ops);
  const PathReport r = probe_path(calls, 3);
  EXPECT_EQ(r.mss.value, 1460);
  EXPECT_EQ(r.mss.provenance, Provenance::measured);
  EXPECT_EQ(r.mss.source, "getsockopt(TCP_MAXSEG)");
  EXPECT_EQ(r.timestamps.provenance, Provenance::fallback);
  EXPECT_FALSE(r.timestamps.value);
  EXPECT_NE(r.timestamps.source.find("getsockopt(TCP_INFO)"), std::string::npos);
  EXPECT_FALSE(r.tcp_info_snd_mss);
}

TEST(PathProbe, SeedFallbackMtuMinus40) {
  FakeSocketOps ops;
  ops.info = tl::unexpected(Error{"getsockopt(TCP_INFO)", ENOPROTOOPT, {}});
  ops.maxseg = tl::unexpected(Error{"getsockopt(TCP_MAXSEG)", ENOPROTOOPT, {}});
  ops.mtu = InterfaceMtu{"wlan0", 1400};
  Syscalls calls(ops);
  const auto mss = probe_mss(calls, 3);
  EXPECT_EQ(mss.value, 1360);
  EXPECT_EQ(mss.provenance, Provenance::fallback);
  EXPECT_EQ(mss.source, "fallback: interface MTU - 40");
  EXPECT_EQ(probe_path(calls, 3).mss.value, 1360);
}

TEST(PathProbe, TimestampsKnownOnShrinkTheFallback) {
  FakeSocketOps ops;
  ops.info = TcpInfo{0, true};  // TCP_INFO without an MSS (not yet connected, say)
  ops.maxseg = 0;
  Syscalls calls(ops);
  const auto mss = probe_mss(calls, 3);
  EXPECT_EQ(mss.value, 1448);
  EXPECT_EQ(mss.provenance, Provenance::fallback);
  EXPECT_EQ(mss.source, "fallback: interface MTU - 52 (40 + 12 for timestamps)");
}

TEST(PathProbe, MtuFloorAndDefault) {
  FakeSocketOps ops;
  ops.info = TcpInfo{0, false};
  ops.maxseg = 0;
  ops.mtu = InterfaceMtu{"tun0", 500};
  Syscalls calls(ops);
  PathReport r = probe_path(calls, 3);
  EXPECT_EQ(r.mtu.value, 576);
  EXPECT_EQ(r.mtu.provenance, Provenance::fallback);
  EXPECT_EQ(r.mtu.source, "fallback: 576 floor (tun0 reports 500)");
  EXPECT_EQ(r.mss.value, 536);
  EXPECT_NE(r.mss.source.find("MTU itself a fallback: 576 floor"), std::string::npos) << r.mss.source;

  ops.mtu = tl::unexpected(Error{"getifaddrs", ENODEV, "no interface owns the socket's local address"});
  r = probe_path(calls, 3);
  EXPECT_EQ(r.mtu.value, 1500);
  EXPECT_EQ(r.mtu.provenance, Provenance::fallback);
  EXPECT_EQ(r.mtu.source,
            "fallback: 1500, Ethernet (getifaddrs: no interface owns the socket's local address)");
  EXPECT_EQ(r.mss.value, 1460);
  EXPECT_TRUE(r.interface.empty());
}

TEST(PathProbe, SendBufferFallback) {
  FakeSocketOps ops;
  ops.get_sndbuf_error = Error{"getsockopt(SO_SNDBUF)", EBADF, {}};
  Syscalls calls(ops);
  const auto b = probe_send_buffer(calls, 3);
  EXPECT_EQ(b.value, 8192);
  EXPECT_EQ(b.provenance, Provenance::fallback);
  ops.get_sndbuf_error.reset();
  ops.doubled = false;
  ops.sndbuf_reported = 65536;
  EXPECT_EQ(probe_send_buffer(calls, 3).value, 65536);
  EXPECT_EQ(probe_send_buffer(calls, 3).source, "getsockopt(SO_SNDBUF)");
}

TEST(PathProbe, ProbeMssSkipsTheInterfaceLookupWhenMeasured) {
  FakeSocketOps ops;
  Syscalls calls(ops);
  (void)probe_mss(calls, 3);
  EXPECT_EQ(ops.interface_calls, 0);
}

// The real thing, on loopback.
TEST(PathProbeLoopback, MeasuresLoopback) {
  auto listener = listen_tcp({"127.0.0.1", 0});
  ASSERT_TRUE(listener) << listener.error().message();
  auto client = connect_tcp({"127.0.0.1", listener->port}, std::chrono::seconds(5));
  ASSERT_TRUE(client) << client.error().message();
  ChunkedSender sender(system_socket_ops(), client->native());
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 32768));

  Syscalls calls(system_socket_ops());
  const PathReport r = probe_path(calls, client->native());
  EXPECT_EQ(r.interface, "lo");
  EXPECT_EQ(r.mtu.provenance, Provenance::measured);
  EXPECT_GE(r.mtu.value, 576);
  EXPECT_EQ(r.mss.provenance, Provenance::measured);
  EXPECT_GT(r.mss.value, 0);
  EXPECT_LT(r.mss.value, r.mtu.value);
  EXPECT_EQ(r.timestamps.provenance, Provenance::measured);
  EXPECT_TRUE(r.stream);
  // The value the application set (the kernel reports double on Linux).
  EXPECT_EQ(r.sndbuf.value, 32768);
  EXPECT_EQ(r.sndbuf.provenance, Provenance::measured);
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->params(), r.params());
}

}  // namespace
}  // namespace ackstall::net
