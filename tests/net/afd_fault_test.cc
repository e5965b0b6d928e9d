// AfdSocketOps over a scripted SocketOps (fake_socket_ops.h): completions merged, out of order
// or not TX_ACK at all; failures of the error-queue read, of poll and of the socket itself;
// poll timeouts; EINTR on every call. (Real sockets: afd_emulator_test.cc.)
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "ackstall/net/afd_emulator.h"
#include "ackstall/net/chunked_sender.h"
#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

using testing::FakeSocketOps;
using Poll = FakeSocketOps::PollStep;

constexpr NativeSocket kSocket = 3;

#if defined(__linux__)

struct AfdFault : ::testing::Test {
  FakeSocketOps inner;
  std::unique_ptr<AfdSocketOps> afd;
  std::vector<std::byte> data = std::vector<std::byte>(4096, std::byte{5});

  void attach(std::int64_t quota) {
    auto a = AfdSocketOps::attach(inner, kSocket, {.quota = quota});
    ASSERT_TRUE(a.has_value()) << a.error().message();
    afd = std::move(*a);
  }
  Result<std::size_t> send(std::size_t n) {
    const core::ByteSlice slice{data.data(), n};
    return afd->send(kSocket, {&slice, 1}, SendFlags::none);
  }
};

TEST_F(AfdFault, AttachForcesTheKernelBufferAndEnablesTxAck) {
  attach(8192);
  using Set = std::pair<SocketOption, int>;
  EXPECT_EQ(inner.options_set, (std::vector<Set>{{SocketOption::send_buffer_force, 4 << 20},
                                                 {SocketOption::tx_ack_timestamps, 1}}));
}

TEST_F(AfdFault, AttachFallsBackToSoSndbufWithoutPrivilege) {
  inner.set_option_errors[SocketOption::send_buffer_force] = EPERM;
  attach(8192);
  using Set = std::pair<SocketOption, int>;
  EXPECT_EQ(inner.options_set, (std::vector<Set>{{SocketOption::send_buffer, 4 << 20},
                                                 {SocketOption::tx_ack_timestamps, 1}}));
}

TEST_F(AfdFault, AttachFailsWhenTimestampingIsRefused) {
  inner.set_option_errors[SocketOption::tx_ack_timestamps] = EINVAL;  // e.g. not connected
  auto a = AfdSocketOps::attach(inner, kSocket, {});
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code, EINVAL);
}

TEST_F(AfdFault, AttachFailsWhenNoSendBufferCanBeSet) {
  inner.set_option_errors[SocketOption::send_buffer_force] = EPERM;
  inner.set_option_errors[SocketOption::send_buffer] = EBADF;
  auto a = AfdSocketOps::attach(inner, kSocket, {});
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code, EBADF);
}

TEST_F(AfdFault, MergedCompletionsAreCumulative) {
  attach(1 << 20);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(1000).value(), 1000u);
  // The kernel merged the three sends into one skb and reports only the newest id (byte 2999).
  inner.error_queue.emplace_back(FakeSocketOps::tx_ack(2999));
  ASSERT_TRUE(afd->wait_all_acked(1000).has_value());
  EXPECT_EQ(afd->quota().acked(), 3000);
  EXPECT_EQ(afd->quota().charged(), 0);
  EXPECT_EQ(afd->stats().completions, 1u);
  EXPECT_EQ(afd->stats().sends, 3u);
}

TEST_F(AfdFault, AnOlderCompletionAfterANewerOneAcknowledgesNothingNew) {
  attach(1 << 20);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(1000).value(), 1000u);
  inner.error_queue.emplace_back(FakeSocketOps::tx_ack(1999));
  inner.error_queue.emplace_back(FakeSocketOps::tx_ack(999));  // out of order: behind
  ASSERT_FALSE(afd->wait_all_acked(0).has_value());             // 2000 of 3000: not all
  EXPECT_EQ(afd->quota().acked(), 2000);
  EXPECT_EQ(afd->stats().completions, 2u);
}

TEST_F(AfdFault, MessagesThatAreNotTxAcksAreSkipped) {
  attach(1 << 20);
  ASSERT_EQ(send(1000).value(), 1000u);
  inner.error_queue.emplace_back(ErrorQueueEntry{false, 999});
  auto r = afd->wait_all_acked(0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ETIMEDOUT);
  EXPECT_EQ(afd->quota().acked(), 0);
  EXPECT_EQ(afd->stats().completions, 0u);
}

TEST_F(AfdFault, OverQuotaSendIsEagainUntilACompletionFrees) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);  // allowed (0 < quota), charged whole
  auto blocked = send(1);
  ASSERT_FALSE(blocked.has_value());
  EXPECT_EQ(blocked.error().code, EAGAIN);
  EXPECT_EQ(afd->stats().would_blocks, 1u);
  inner.error_queue.emplace_back(FakeSocketOps::tx_ack(4095));
  EXPECT_EQ(send(1).value(), 1u);  // the completion is read before refusing
  EXPECT_EQ(inner.calls.size(), 2u);
}

TEST_F(AfdFault, ErrorQueueReadFailureFailsTheSend) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  inner.error_queue.emplace_back(core::os_failure("recvmsg(MSG_ERRQUEUE)", ENOMEM));
  auto r = send(1);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ENOMEM);
  EXPECT_EQ(inner.calls.size(), 1u);  // nothing sent, nothing charged
  EXPECT_EQ(afd->quota().charged(), 4096);
}

TEST_F(AfdFault, ErrorQueueReadFailureDuringAWaitFailsTheWait) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  // The read before polling finds the queue empty; the read after the poll fails.
  inner.error_queue = {core::os_failure("recvmsg(MSG_ERRQUEUE)", EAGAIN),
                       core::os_failure("recvmsg(MSG_ERRQUEUE)", EIO)};
  inner.poll_script = {Poll{PollEvents::error, {}, {}}};
  auto r = afd->wait_writable(kSocket, 1000);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, EIO);
  EXPECT_EQ(inner.poll_timeouts.size(), 1u);
  EXPECT_EQ(afd->stats().waits, 1u);
}

TEST_F(AfdFault, CompletionsArrivingDuringPollsEndTheWait) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  // A poll that ends without an event (spurious wake-up: the loop polls again), then the ACK.
  inner.poll_script = {Poll{PollEvents::none, {}, {}},
                       Poll{PollEvents::error, {FakeSocketOps::tx_ack(4095)}, {}}};
  ASSERT_TRUE(afd->wait_writable(kSocket, 5000).has_value());
  EXPECT_TRUE(afd->quota().may_send());
  EXPECT_EQ(inner.poll_timeouts.size(), 2u);
  EXPECT_EQ(inner.poll_wants, (std::vector<PollEvents>{PollEvents::none, PollEvents::none}));
  EXPECT_EQ(afd->stats().waits, 1u);
}

TEST_F(AfdFault, PollTimeoutIsEtimedout) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  inner.poll_script = {Poll{PollEvents::none, {}, std::chrono::milliseconds(30)}};
  const auto start = std::chrono::steady_clock::now();
  auto r = afd->wait_writable(kSocket, 20);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ETIMEDOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  ASSERT_FALSE(inner.poll_timeouts.empty());
  EXPECT_LE(inner.poll_timeouts.front(), 20);
  EXPECT_EQ(afd->stats().waits, 1u);
  EXPECT_EQ(afd->stats().stalls, 1u);  // 20 ms threshold
}

TEST_F(AfdFault, PollFailureFailsTheWait) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  inner.poll_script = {Poll{core::os_failure("poll", ENOMEM), {}, {}}};
  auto r = afd->wait_writable(kSocket, 1000);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ENOMEM);
}

TEST_F(AfdFault, SocketErrorWithoutCompletionEndsTheWait) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  inner.poll_script = {Poll{PollEvents::error, {}, {}}};
  inner.so_error = ECONNRESET;
  auto r = afd->wait_writable(kSocket, 1000);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "send: Connection reset by peer");
}

TEST_F(AfdFault, HangupEndsTheWaitWithEpipeAndAClosedSocketWithEbadf) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  inner.poll_script = {Poll{PollEvents::hangup, {}, {}}};
  auto hup = afd->wait_all_acked(1000);
  ASSERT_FALSE(hup.has_value());
  EXPECT_EQ(hup.error().code, EPIPE);
  inner.poll_script = {Poll{PollEvents::invalid | PollEvents::hangup, {}, {}}};
  auto nval = afd->wait_all_acked(1000);
  ASSERT_FALSE(nval.has_value());
  EXPECT_EQ(nval.error().code, EBADF);
}

TEST_F(AfdFault, ACompletionWinsOverAHangupInTheSamePoll) {
  attach(4096);
  ASSERT_EQ(send(4096).value(), 4096u);
  inner.poll_script = {Poll{PollEvents::error | PollEvents::hangup,
                            {FakeSocketOps::tx_ack(4095)}, {}}};
  EXPECT_TRUE(afd->wait_all_acked(1000).has_value());
}

TEST_F(AfdFault, EintrOnEveryCallIsRetriedOutsideTheEmulator) {
  attach(8192);
  const int before = inner.total_calls;
  inner.arm_eintr(2);         // every call from now on fails twice with EINTR first
  inner.ack_on_poll = true;   // each poll brings the completion of everything sent so far
  // Seed policy, quota 8192, MSS 1448: 7240 + 7240 + 5520; the third waits for a completion.
  std::vector<std::byte> payload(20000, std::byte{9});
  const core::ByteSlice slice{payload.data(), payload.size()};
  ChunkedSender sender(*afd, kSocket, {core::PolicyKind::seed, 1448});
  auto r = sender.send({&slice, 1});
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->bytes, 20000u);
  EXPECT_EQ(inner.received, payload);
  ASSERT_TRUE(afd->wait_all_acked(1000).has_value());
  EXPECT_EQ(afd->quota().charged(), 0);
  EXPECT_EQ(afd->stats().sends, 3u);
  EXPECT_EQ(afd->stats().would_blocks, 1u);
  EXPECT_EQ(afd->stats().waits, 2u);  // wait_writable, wait_all_acked
  // Every call the emulator and the sender made was interrupted twice, then made once.
  const int calls = inner.total_calls - before;
  EXPECT_GT(calls, 0);
  EXPECT_EQ(calls % 3, 0);
}

#else

TEST(AfdFault, AttachIsUnsupportedOffLinux) {
  FakeSocketOps inner;
  auto a = AfdSocketOps::attach(inner, kSocket, {});
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(a.error().code, EOPNOTSUPP);
  EXPECT_TRUE(inner.options_set.empty());
}

#endif

}  // namespace
}  // namespace ackstall::net
