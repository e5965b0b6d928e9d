// The receive path through the seam: Syscalls::recv (what recv_some runs) over a scripted
// SocketOps — short receives, EINTR on every call, would-block, end of stream, ECONNRESET.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#include "ackstall/net/syscalls.h"
#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

using testing::FakeSocketOps;

constexpr NativeSocket kSocket = 3;

std::vector<std::byte> pattern(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 7 + 1) & 0xff);
  return v;
}

// Reads until end of stream, as ttcp's receiver does; fails on the first error.
Result<std::vector<std::byte>> read_all(Syscalls& calls, std::size_t buffer) {
  std::vector<std::byte> got, buf(buffer);
  for (;;) {
    auto r = calls.recv(kSocket, buf);
    if (!r) return tl::unexpected(r.error());
    if (r->eof) return got;
    got.insert(got.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(r->bytes));
  }
}

TEST(Receive, ShortReceivesDeliverTheStreamInOrder) {
  FakeSocketOps ops;
  ops.incoming = pattern(5000);
  ops.recv_script = {FakeSocketOps::take(1), FakeSocketOps::take(999), FakeSocketOps::take(7)};
  Syscalls calls(ops);
  auto got = read_all(calls, 1024);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(*got, ops.incoming);
  // 1, 999, 7, then as much as the 1024-byte buffer holds, then end of stream (0).
  EXPECT_EQ(ops.recv_sizes,
            (std::vector<std::size_t>{1, 999, 7, 1024, 1024, 1024, 921, 0}));
}

TEST(Receive, EintrOnEveryCallIsRetried) {
  FakeSocketOps ops;
  ops.incoming = pattern(3000);
  ops.arm_eintr(3);
  Syscalls calls(ops);
  auto got = read_all(calls, 1000);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(*got, ops.incoming);
  EXPECT_EQ(ops.recv_sizes.size(), 4u);        // 3 x 1000, then end of stream
  EXPECT_EQ(ops.total_calls, 4 * 4);           // each made once after three EINTRs
}

TEST(Receive, ConnectionResetIsAnErrorNamingRecv) {
  FakeSocketOps ops;
  ops.incoming = pattern(100);
  ops.recv_script = {FakeSocketOps::take(60), FakeSocketOps::error(ECONNRESET)};
  Syscalls calls(ops);
  std::vector<std::byte> buf(100);
  EXPECT_EQ(calls.recv(kSocket, buf).value(), (RecvOutcome{60, false, false}));
  auto r = calls.recv(kSocket, buf);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ECONNRESET);
  EXPECT_EQ(r.error().message(), "recv: Connection reset by peer");
}

TEST(Receive, WouldBlockIsAStatusNotAnError) {
  FakeSocketOps ops;
  ops.incoming = pattern(10);
  ops.recv_script = {FakeSocketOps::error(EAGAIN), FakeSocketOps::error(EWOULDBLOCK)};
  Syscalls calls(ops);
  std::vector<std::byte> buf(10);
  EXPECT_EQ(calls.recv(kSocket, buf).value(), (RecvOutcome{0, true, false}));
  EXPECT_EQ(calls.recv(kSocket, buf).value(), (RecvOutcome{0, true, false}));
  EXPECT_EQ(calls.recv(kSocket, buf).value(), (RecvOutcome{10, false, false}));
}

TEST(Receive, EndOfStreamOnlyWithRoomToRead) {
  FakeSocketOps ops;  // nothing incoming: the peer has closed
  Syscalls calls(ops);
  std::vector<std::byte> buf(10);
  EXPECT_EQ(calls.recv(kSocket, buf).value(), (RecvOutcome{0, false, true}));
  EXPECT_EQ(calls.recv(kSocket, {}).value(), (RecvOutcome{0, false, false}));
}

TEST(Receive, ASendOnlySocketOpsDoesNotReceive) {
  struct SendOnly final : SocketOps {
    Result<std::size_t> send(NativeSocket, std::span<const core::ByteSlice>, SendFlags) override {
      return 0;
    }
    Result<void> wait_writable(NativeSocket, int) override { return {}; }
    Result<int> get_option(NativeSocket, SocketOption) override { return 0; }
    Result<void> set_option(NativeSocket, SocketOption, int) override { return {}; }
    Result<bool> is_nonblocking(NativeSocket) override { return false; }
    Result<TcpInfo> tcp_info(NativeSocket) override { return TcpInfo{}; }
    Result<InterfaceMtu> interface_mtu(NativeSocket) override { return InterfaceMtu{}; }
    Result<SocketKind> socket_kind(NativeSocket) override { return SocketKind{}; }
    bool send_buffer_reported_doubled() const noexcept override { return false; }
  } ops;
  Syscalls calls(ops);
  std::vector<std::byte> buf(10);
  EXPECT_EQ(calls.recv(kSocket, buf).error().code, EOPNOTSUPP);
  EXPECT_EQ(calls.poll(kSocket, PollEvents::in, 0).error().code, EOPNOTSUPP);
  EXPECT_EQ(calls.read_error_queue(kSocket).error().code, EOPNOTSUPP);
}

}  // namespace
}  // namespace ackstall::net
