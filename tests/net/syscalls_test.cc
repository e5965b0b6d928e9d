#include "ackstall/net/syscalls.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

using testing::FakeSocketOps;

TEST(Syscalls, EveryCallRetriesEintr) {
  FakeSocketOps ops;
  ops.arm_eintr(5);
  Syscalls calls(ops);
  const int s = 3;
  std::byte b[4] = {};
  const core::ByteSlice slice{b, 4};
  EXPECT_EQ(calls.send(s, {&slice, 1}, SendFlags::none).value(), (SendOutcome{4, false}));
  EXPECT_TRUE(calls.wait_writable(s, -1));
  EXPECT_EQ(calls.get_option(s, SocketOption::send_buffer).value(), 16384);
  EXPECT_TRUE(calls.set_option(s, SocketOption::send_buffer, 100));
  EXPECT_EQ(calls.is_nonblocking(s).value(), false);
  EXPECT_EQ(calls.tcp_info(s).value().snd_mss, 1448);
  EXPECT_EQ(calls.interface_mtu(s).value().mtu, 1500);
  EXPECT_TRUE(calls.socket_kind(s).value().stream);
  EXPECT_EQ(ops.total_calls, 8 * 6);
}

TEST(Syscalls, WouldBlockIsAStatus) {
  FakeSocketOps ops;
  ops.script = {FakeSocketOps::error(EAGAIN), FakeSocketOps::error(EWOULDBLOCK),
                FakeSocketOps::error(EPIPE)};
  Syscalls calls(ops);
  std::byte b[1] = {};
  const core::ByteSlice slice{b, 1};
  EXPECT_EQ(calls.send(3, {&slice, 1}, SendFlags::none).value(), (SendOutcome{0, true}));
  EXPECT_EQ(calls.send(3, {&slice, 1}, SendFlags::none).value(), (SendOutcome{0, true}));
  auto r = calls.send(3, {&slice, 1}, SendFlags::none);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "sendmsg: Broken pipe");
}

TEST(Error, MessageNamesTheCall) {
  EXPECT_EQ((Error{"poll", ETIMEDOUT, {}}).message(), "poll: Connection timed out");
  EXPECT_EQ((Error{"getaddrinfo", 0, "Name or service not known"}).message(),
            "getaddrinfo: Name or service not known");
}

}  // namespace
}  // namespace ackstall::net
