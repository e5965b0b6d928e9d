// Real sockets through the POSIX SocketOps: no SIGPIPE, would-block, batching, errors.
#include "ackstall/net/tcp_socket.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <vector>

#include "ackstall/net/chunked_sender.h"
#include "socket_pair.h"

namespace ackstall::net {
namespace {

using namespace std::chrono_literals;

TEST(TcpSocket, SendToAClosedPeerIsAnErrorNotSigpipe) {
  Pair p = connected_pair();
  p.server.close();
  ChunkedSender sender(system_socket_ops(), p.client.native());
  std::vector<std::byte> data(4096);
  const core::ByteSlice s{data.data(), data.size()};
  Result<SendOutcome> r = SendOutcome{};
  for (int i = 0; i < 100 && r; ++i) r = sender.send({&s, 1});  // the process must survive
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().call, "sendmsg");
  EXPECT_TRUE(r.error().code == EPIPE || r.error().code == ECONNRESET) << r.error().message();
}

TEST(TcpSocket, NonblockingFillsUpThenWouldBlock) {
  Pair p = connected_pair();
  ASSERT_TRUE(set_nonblocking(p.client, true));
  ChunkedSender sender(system_socket_ops(), p.client.native(), {core::PolicyKind::seed, 1448});
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 16384));
  std::vector<std::byte> data(1 << 20);
  const core::ByteSlice s{data.data(), data.size()};
  bool blocked = false;
  std::size_t max_single = 0;
  for (int i = 0; i < 100000 && !blocked; ++i) {
    auto r = sender.send({&s, 1});
    ASSERT_TRUE(r) << r.error().message();
    blocked = r->would_block;
    max_single = std::max(max_single, r->bytes);
  }
  EXPECT_TRUE(blocked);
  // One chunk per call: below the tracked 16384.
  EXPECT_LT(max_single, 16384u);
}

TEST(TcpSocket, MoreSlicesThanIovMax) {
  Pair p = connected_pair();
  const std::size_t n = 2 * kMaxSlicesPerCall + 5;
  std::vector<std::byte> data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::byte>(i * 7);
  std::vector<core::ByteSlice> slices;
  for (std::size_t i = 0; i < n; ++i) slices.push_back({data.data() + i, 1});
  ChunkedSender sender(system_socket_ops(), p.client.native());
  auto r = sender.send(slices);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->bytes, n);
  std::vector<std::byte> got;
  std::vector<std::byte> buf(n);
  while (got.size() < n) {
    auto g = recv_some(p.server, buf);
    ASSERT_TRUE(g);
    ASSERT_FALSE(g->eof);
    got.insert(got.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(g->bytes));
  }
  EXPECT_EQ(got, data);
}

TEST(TcpSocket, ConnectRefusedNamesTheCall) {
  std::uint16_t port = 0;
  {
    auto l = listen_tcp({"127.0.0.1", 0});
    ASSERT_TRUE(l);
    port = l->port;
  }  // closed: nothing listens there now
  auto c = connect_tcp({"127.0.0.1", port}, 5s);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "connect: Connection refused");
}

TEST(TcpSocket, UnknownHostIsAnError) {
  auto c = connect_tcp({"no-such-host.invalid", 80}, 1s);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().call, "getaddrinfo");
  EXPECT_FALSE(c.error().message().empty());
}

TEST(TcpSocket, Addresses) {
  Pair p = connected_pair();
  auto local = local_address(p.client);
  auto peer = peer_address(p.client);
  ASSERT_TRUE(local && peer);
  EXPECT_EQ(local->rfind("127.0.0.1:", 0), 0u);
  EXPECT_EQ(*peer, *local_address(p.server));
}

}  // namespace
}  // namespace ackstall::net
