// unwrap_ack_id and AfdSocketOps over a real loopback connection (the pure accounting,
// core::AfdQuota, is tested in tests/core/afd_quota_test.cc).
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "ackstall/net/afd_emulator.h"
#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/tcp_socket.h"

namespace ackstall::net {
namespace {

TEST(AfdAckId, UnwrapsThirtyTwoBitIds) {
  EXPECT_EQ(unwrap_ack_id(99, 0), 100u);
  EXPECT_EQ(unwrap_ack_id(0xffffffffu, 0xfffffff0u), 0x100000000u);
  EXPECT_EQ(unwrap_ack_id(15, 0xfffffff0u), 0x100000010u);         // wrapped
  EXPECT_EQ(unwrap_ack_id(5, 0x100000010u), 0x100000010u);          // older: no progress
  EXPECT_EQ(unwrap_ack_id(0x7ffffffeu, 0), 0x7fffffffu);
}

#if defined(__linux__)
struct Pair {
  TcpSocket client, server;
};
Pair connected_pair() {
  auto l = listen_tcp({"127.0.0.1", 0});
  EXPECT_TRUE(l.has_value());
  auto c = connect_tcp({"127.0.0.1", l->port}, std::chrono::seconds(5));
  EXPECT_TRUE(c.has_value());
  auto s = accept_tcp(l->socket);
  EXPECT_TRUE(s.has_value());
  return {std::move(*c), std::move(*s)};
}

TEST(AfdSocketOps, RefusesOverQuotaUntilTheAckArrives) {
  Pair p = connected_pair();
  auto ops = AfdSocketOps::attach(system_socket_ops(), p.client.native(), {.quota = 8192});
  ASSERT_TRUE(ops.has_value()) << ops.error().message();
  AfdSocketOps& afd = **ops;
  std::vector<std::byte> data(10000, std::byte{7});
  const core::ByteSlice slice{data.data(), data.size()};
  auto first = afd.send(p.client.native(), std::span(&slice, 1), SendFlags::none);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, 10000u);  // allowed: 0 < quota, charged whole
  // Loopback ACKs within microseconds; either the completion is already there or not yet.
  ASSERT_TRUE(afd.wait_writable(p.client.native(), 5000).has_value());
  EXPECT_TRUE(afd.quota().may_send());
  EXPECT_EQ(afd.quota().acked(), 10000);
  EXPECT_GE(afd.stats().completions, 1u);
  EXPECT_EQ(*afd.get_option(p.client.native(), SocketOption::send_buffer), 8192);
  ASSERT_TRUE(afd.set_option(p.client.native(), SocketOption::send_buffer, 4096).has_value());
  EXPECT_EQ(afd.quota().quota(), 4096);
}

TEST(AfdSocketOps, ChunkedSenderTransfersThroughTheQuotaAndDrains) {
  Pair p = connected_pair();
  auto ops = AfdSocketOps::attach(system_socket_ops(), p.client.native(), {.quota = 8192});
  ASSERT_TRUE(ops.has_value()) << ops.error().message();
  constexpr std::size_t kLen = 15928, kSends = 300;
  std::uint64_t received = 0;
  std::thread reader([&] {
    std::vector<std::byte> buf(65536);
    for (;;) {
      auto r = recv_some(p.server, buf);
      if (!r || r->eof) return;
      received += r->bytes;
    }
  });
  ChunkedSender sender(**ops, p.client.native(), {core::PolicyKind::seed, 1448});
  std::vector<std::byte> data(kLen, std::byte{1});
  const core::ByteSlice slice{data.data(), data.size()};
  for (std::size_t i = 0; i < kSends; ++i) {
    auto r = sender.send(std::span(&slice, 1));
    ASSERT_TRUE(r.has_value()) << r.error().message();
    ASSERT_EQ(r->bytes, kLen);
  }
  ASSERT_TRUE((*ops)->wait_all_acked(10000).has_value());
  EXPECT_EQ((*ops)->quota().charged(), 0);
  // seed chunking of 15928 under an 8192 quota: more than one charged send per write.
  EXPECT_GT((*ops)->stats().sends, kSends);
  ASSERT_TRUE(shutdown_send(p.client).has_value());
  reader.join();
  EXPECT_EQ(received, kLen * kSends);
}

TEST(AfdSocketOps, PeerResetIsAnErrorNotAHang) {
  Pair p = connected_pair();
  auto ops = AfdSocketOps::attach(system_socket_ops(), p.client.native(), {.quota = 1});
  ASSERT_TRUE(ops.has_value());
  p.server.close();  // the peer goes away: sends soon fail with EPIPE / ECONNRESET
  std::vector<std::byte> data(4096);
  const core::ByteSlice slice{data.data(), data.size()};
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) {
    auto s = (*ops)->send(p.client.native(), std::span(&slice, 1), SendFlags::none);
    if (!s && s.error().code != EAGAIN) failed = true;
    if (!s && s.error().code == EAGAIN) failed = !(*ops)->wait_writable(p.client.native(), 2000);
  }
  EXPECT_TRUE(failed);
}

TEST(AfdSocketOps, AttachBeforeConnectFails) {
  TcpSocket unconnected;  // invalid fd
  EXPECT_FALSE(AfdSocketOps::attach(system_socket_ops(), unconnected.native(), {}).has_value());
}
#endif

}  // namespace
}  // namespace ackstall::net
