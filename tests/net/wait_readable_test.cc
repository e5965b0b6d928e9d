// wait_readable over real sockets and pipes (POSIX: poll; Windows: WSAEventSelect + the pipe
// helper thread with its wake-up event).
#include "ackstall/net/wait_readable.h"

#include <gtest/gtest.h>

#include <chrono>
#include <span>
#include <vector>
#include <thread>

#include "ackstall/net/socket_ops.h"
#include "ackstall/net/syscalls.h"
#include "ackstall/net/tcp_socket.h"
#include "socket_pair.h"

namespace ackstall::net {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Pipe {
  PipePair p;
  Pipe() {
    auto r = make_pipe();
    EXPECT_TRUE(r) << r.error().message();
    if (r) p = *r;
  }
  ~Pipe() {
    close_pipe(p.read);
    close_pipe(p.write);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

const std::byte kByte{0x5a};

TEST(WaitReadable, TimesOutWithNothingReady) {
  Pair sp = connected_pair();
  Pipe pipe;
  const WaitItem items[] = {WaitItem::of_socket(sp.server.native()),
                            WaitItem::of_pipe(pipe.p.read)};
  const auto t0 = Clock::now();
  auto r = wait_readable(items, 50);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->empty());
  EXPECT_GE(Clock::now() - t0, 45ms);
}

TEST(WaitReadable, ReportsEveryReadyItem) {
  Pair sp = connected_pair();
  Pipe pipe;
  ASSERT_TRUE(write_pipe(pipe.p.write, {&kByte, 1}));
  const WaitItem items[] = {WaitItem::of_socket(sp.server.native()),
                            WaitItem::of_pipe(pipe.p.read)};
  auto r = wait_readable(items, 1000);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::size_t>{1}));
}

// The seed's select.cc fix: data on the socket ends the wait, and the pipe helper thread (whose
// poll period here is a full second) is torn down at once rather than after its next sleep.
TEST(WaitReadable, SocketDataEndsTheWaitAndThePipeThreadAtOnce) {
  Pair sp = connected_pair();
  Pipe pipe;
  const WaitItem items[] = {WaitItem::of_pipe(pipe.p.read),
                            WaitItem::of_socket(sp.server.native())};
  std::thread sender([&] {
    std::this_thread::sleep_for(30ms);
    const core::ByteSlice one{&kByte, 1};
    Syscalls calls(system_socket_ops());
    EXPECT_TRUE(calls.send(sp.client.native(), {&one, 1}, SendFlags::none));
  });
  const auto t0 = Clock::now();
  auto r = wait_readable(items, 5000, WaitOptions{PipeWatch::event, 1000});
  const auto took = Clock::now() - t0;
  sender.join();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::size_t>{1}));
  EXPECT_LT(took, 500ms);
  // The socket is usable (and blocking) afterwards: the byte is there to read.
  std::byte b{};
  auto got = recv_some(sp.server, {&b, 1});
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(got->bytes, 1u);
  EXPECT_EQ(b, kByte);
  auto nb = system_socket_ops().is_nonblocking(sp.server.native());
  ASSERT_TRUE(nb);
  EXPECT_FALSE(*nb);
}

TEST(WaitReadable, PipeEndOfFileIsReadable) {
  Pipe pipe;
  close_pipe(pipe.p.write);
  pipe.p.write = kInvalidPipe;
  const WaitItem items[] = {WaitItem::of_pipe(pipe.p.read)};
  auto r = wait_readable(items, 1000);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (std::vector<std::size_t>{0}));
  std::byte b{};
  auto n = read_pipe(pipe.p.read, {&b, 1});
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(*n, 0u);
}
}  // namespace
}  // namespace ackstall::net
