#include "ackstall/net/syscalls.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <vector>

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
  std::byte in[4] = {};
  EXPECT_EQ(calls.recv(s, in).value(), (RecvOutcome{0, false, true}));
  EXPECT_EQ(calls.poll(s, PollEvents::in, 0).value(), PollEvents::none);
  EXPECT_EQ(calls.read_error_queue(s).value(), std::nullopt);
  EXPECT_EQ(ops.total_calls, 11 * 6);
}

TEST(Syscalls, PollRetriesEintrWithWhatIsLeftOfTheTimeout) {
  FakeSocketOps ops;
  using Poll = FakeSocketOps::PollStep;
  const Error eintr{"poll", EINTR, {}};
  ops.poll_script = {Poll{tl::unexpected(eintr), {}, std::chrono::milliseconds(40)},
                     Poll{tl::unexpected(eintr), {}, std::chrono::milliseconds(80)},
                     Poll{PollEvents::none, {}, {}}};
  Syscalls calls(ops);
  EXPECT_EQ(calls.poll(3, PollEvents::in, 100).value(), PollEvents::none);
  ASSERT_EQ(ops.poll_timeouts.size(), 3u);
  EXPECT_EQ(ops.poll_timeouts[0], 100);
  EXPECT_LE(ops.poll_timeouts[1], 60);  // 40 ms of 100 spent
  EXPECT_EQ(ops.poll_timeouts[2], 0);   // all spent: one last check, not a new wait
}

TEST(Syscalls, PollForeverStaysForever) {
  FakeSocketOps ops;
  ops.arm_eintr(2);
  ops.poll_script = {FakeSocketOps::PollStep{PollEvents::in | PollEvents::hangup, {}, {}}};
  Syscalls calls(ops);
  EXPECT_EQ(calls.poll(3, PollEvents::in, -1).value(), PollEvents::in | PollEvents::hangup);
  EXPECT_EQ(ops.poll_timeouts, (std::vector<int>{-1}));
}

TEST(Syscalls, ErrorQueueEmptyIsAStatusAndFailuresPassThrough) {
  FakeSocketOps ops;
  ops.error_queue = {FakeSocketOps::tx_ack(7), core::os_failure("recvmsg(MSG_ERRQUEUE)", EIO)};
  Syscalls calls(ops);
  EXPECT_EQ(calls.read_error_queue(3).value(), FakeSocketOps::tx_ack(7));
  EXPECT_EQ(calls.read_error_queue(3).error().code, EIO);
  EXPECT_EQ(calls.read_error_queue(3).value(), std::nullopt);
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
