#include "ackstall/net/chunked_sender.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <numeric>
#include <vector>

#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

using testing::FakeSocketOps;

std::vector<std::byte> pattern(std::size_t n, unsigned seed = 1) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return v;
}

std::vector<std::size_t> accepted_sizes(const FakeSocketOps& ops) {
  std::vector<std::size_t> out;
  for (const auto& c : ops.calls) out.push_back(c.accepted);
  return out;
}

// The seed's policy with a measured MSS (the library's default is auto: a plain send on Linux).
const SenderOptions kSeed{core::PolicyKind::seed, 0};

// The seed's example: SO_SNDBUF 8192, MSS 1448 -> 5792 + 2400.
struct SenderTest : ::testing::Test {
  FakeSocketOps ops;
  std::vector<std::byte> data = pattern(8192);
  core::ByteSlice one{data.data(), data.size()};
  SenderTest() { ops.sndbuf_reported = 16384; }  // Linux: set 8192, reads back 16384
};

TEST_F(SenderTest, BlockingSendsChunkAfterChunkAsTheSeedPlans) {
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, (SendOutcome{8192, false}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{5792, 2400}));
  EXPECT_EQ(ops.received, data);
  const auto policy = sender.policy();
  ASSERT_TRUE(policy);
  core::SocketParams want{8192, 1448, true, kKernelChargesPerSend};
  want.minshall_nagle = kMinshallNagle;  // the platform's Nagle (path_probe.h)
  want.sndbuf_set = false;                // the application has not set SO_SNDBUF
  EXPECT_EQ(policy->params(), want);
}

// cygwin-patch sends a message shorter than SO_SNDBUF whole only where the application set
// SO_SNDBUF (contrib/cygwin/cygwin_piece.h): said in SenderOptions, or by setting it through the
// sender, as Cygwin's setsockopt marks it.
TEST_F(SenderTest, CygwinPatchSendsAShortMessageWholeOnlyWhereSoSndbufWasSet) {
  std::vector<std::byte> half = pattern(4096);
  const core::ByteSlice msg{half.data(), half.size()};
  ChunkedSender unset(ops, 3, {core::PolicyKind::cygwin_patch, 0});
  ASSERT_TRUE(unset.send({&msg, 1}));
  EXPECT_GT(ops.calls.size(), 1u);  // cut: Windows' dynamic buffering may hold less than 8192
  ops.calls.clear();
  SenderOptions told{core::PolicyKind::cygwin_patch, 0};
  told.sndbuf_set = true;
  ChunkedSender set(ops, 3, told);
  ASSERT_TRUE(set.send({&msg, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{4096}));
  ops.calls.clear();
  ASSERT_TRUE(unset.set_option(SocketOption::send_buffer, 8192));
  ASSERT_TRUE(unset.send({&msg, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{4096}));
  EXPECT_TRUE(unset.policy()->params().sndbuf_set);
}

TEST_F(SenderTest, ExplicitMssOverridesTheProbe) {
  ChunkedSender sender(ops, 3, {core::PolicyKind::seed, 1460});
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{5840, 2352}));
  EXPECT_EQ(ops.tcp_info_calls, 0);
}

TEST_F(SenderTest, PolicyKindsNoneAndCygwin) {
  ChunkedSender none(ops, 3, {core::PolicyKind::none, 0});
  ASSERT_TRUE(none.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{8192}));
  ops.calls.clear();
  ops.sndbuf_reported = 6000;  // tracked 3000
  ChunkedSender cyg(ops, 3, {core::PolicyKind::cygwin, 0});
  ASSERT_TRUE(cyg.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{3000, 3000, 2192}));
}

TEST_F(SenderTest, NonblockingSendsOneChunk) {
  ops.nonblocking = true;
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (SendOutcome{5792, false}));
  EXPECT_EQ(ops.calls.size(), 1u);
}

TEST_F(SenderTest, DontWaitFlagMakesOneCallNonblocking) {
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1}, SendFlags::dont_wait);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes, 5792u);
  EXPECT_TRUE(has(ops.calls[0].flags, SendFlags::dont_wait));
}

TEST_F(SenderTest, BlockingStopsAtTheFirstShortSend) {
  ops.script = {FakeSocketOps::take(5792), FakeSocketOps::take(1000)};
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes, 6792u);
  EXPECT_EQ(ops.calls.size(), 2u);
  EXPECT_TRUE(std::equal(ops.received.begin(), ops.received.end(), data.begin()));
}

TEST_F(SenderTest, BlockingWaitsOnEagainAndRetriesTheSameChunk) {
  ops.script = {FakeSocketOps::error(EAGAIN), FakeSocketOps::error(EWOULDBLOCK),
                FakeSocketOps::all(), FakeSocketOps::error(EAGAIN)};
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes, 8192u);
  EXPECT_EQ(ops.waits, 3);
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{0, 0, 5792, 0, 2400}));
  EXPECT_EQ(ops.calls[0].bytes_offered, 5792u);
  EXPECT_EQ(ops.calls[1].bytes_offered, 5792u);
  EXPECT_EQ(ops.received, data);
}

TEST_F(SenderTest, NonblockingEagainIsWouldBlockNotAnError) {
  ops.nonblocking = true;
  ops.script = {FakeSocketOps::error(EAGAIN)};
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (SendOutcome{0, true}));
  EXPECT_EQ(ops.waits, 0);
}

TEST_F(SenderTest, EintrIsRetriedOnEveryCall) {
  ops.arm_eintr(3);
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->bytes, 8192u);
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{5792, 2400}));
  EXPECT_EQ(ops.received, data);
}

TEST_F(SenderTest, ConnectionResetBeforeAnyByteIsTheError) {
  ops.script = {FakeSocketOps::error(ECONNRESET)};
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().call, "sendmsg");
  EXPECT_EQ(r.error().code, ECONNRESET);
  EXPECT_EQ(r.error().message(), "sendmsg: Connection reset by peer");
}

TEST_F(SenderTest, ErrorAfterPartialProgressReportsBytesThenError) {
  ops.script = {FakeSocketOps::all(), FakeSocketOps::error(ECONNRESET)};
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes, 5792u);
  auto again = sender.send({&one, 1});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ECONNRESET);
  EXPECT_EQ(ops.calls.size(), 2u);  // the deferred error costs no OS call
  auto third = sender.send({&one, 1});
  EXPECT_TRUE(third);  // the error was reported once; the OS is asked again
}

TEST_F(SenderTest, SetSendBufferIsTrackedLazily) {
  ChunkedSender sender(ops, 3, kSeed);
  ASSERT_TRUE(sender.send({&one, 1}));
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(ops.get_sndbuf_calls, 1);  // read once, not per send
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, 4096));
  EXPECT_EQ(ops.sndbuf_reported, 8192);  // the "kernel" doubled it
  EXPECT_EQ(ops.get_sndbuf_calls, 1);    // not re-read yet
  ops.calls.clear();
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(ops.get_sndbuf_calls, 2);
  // tracked 4096 (the value set), mss 1448: base 2896; 8192 -> 2896 2896 2400
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{2896, 2896, 2400}));
  EXPECT_EQ(sender.policy()->params().sndbuf, 4096);
}

TEST_F(SenderTest, UndoubledKernelValueIsUsedAsIs) {
  ops.doubled = false;
  ops.sndbuf_reported = 8192;
  ChunkedSender sender(ops, 3, kSeed);
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{5792, 2400}));
}

TEST_F(SenderTest, OtherOptionsDoNotInvalidate) {
  ChunkedSender sender(ops, 3, kSeed);
  ASSERT_TRUE(sender.send({&one, 1}));
  ASSERT_TRUE(sender.set_option(SocketOption::tcp_nodelay, 1));
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(ops.get_sndbuf_calls, 1);
  sender.invalidate();
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(ops.get_sndbuf_calls, 2);
}

TEST_F(SenderTest, RefreshFailureIsReturned) {
  ops.get_sndbuf_error = Error{"getsockopt(SO_SNDBUF)", EBADF, {}};
  ChunkedSender sender(ops, 3, kSeed);
  auto r = sender.send({&one, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().call, "getsockopt(SO_SNDBUF)");
  EXPECT_TRUE(ops.calls.empty());
}

TEST_F(SenderTest, NonStreamSocketsAreNotChunked) {
  ops.kind = {false, true};
  ChunkedSender sender(ops, 3, kSeed);
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{8192}));
}

TEST_F(SenderTest, EmptyRequestsMakeNoCall) {
  ChunkedSender sender(ops, 3, kSeed);
  std::vector<core::ByteSlice> empties(5, core::ByteSlice{data.data(), 0});
  auto r = sender.send(empties);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, SendOutcome{});
  EXPECT_TRUE(sender.send({}));
  EXPECT_EQ(ops.total_calls, 0);
}

TEST_F(SenderTest, ZeroLengthSlicesAreSkipped) {
  ChunkedSender sender(ops, 3, kSeed);
  std::vector<core::ByteSlice> s = {{data.data(), 0}, {data.data(), 100}, {nullptr, 0},
                                    {data.data() + 100, 8092}, {nullptr, 0}};
  auto r = sender.send(s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes, 8192u);
  EXPECT_EQ(ops.received, data);
  EXPECT_EQ(ops.calls[0].slices, 2u);
}

TEST_F(SenderTest, AtMostMaxSlicesPerCall) {
  const std::size_t n = 3 * kMaxSlicesPerCall + 17;
  auto bytes = pattern(n, 7);
  std::vector<core::ByteSlice> s;
  for (std::size_t i = 0; i < n; ++i) s.push_back({bytes.data() + i, 1});
  ChunkedSender sender(ops, 3, {core::PolicyKind::none, 0});
  auto r = sender.send(s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bytes, n);
  ASSERT_EQ(ops.calls.size(), 4u);
  for (const auto& c : ops.calls) EXPECT_LE(c.slices, kMaxSlicesPerCall);
  EXPECT_EQ(ops.received, bytes);
}

TEST_F(SenderTest, ChunksAcrossSlicesMatchThePlan) {
  // 16 x 1024 bytes with sndbuf 8192 / mss 1448: the plan of 16384 bytes, cut across slices.
  auto bytes = pattern(16384, 3);
  std::vector<core::ByteSlice> s;
  for (std::size_t i = 0; i < 16; ++i) s.push_back({bytes.data() + i * 1024, 1024});
  ChunkedSender sender(ops, 3, kSeed);
  ASSERT_TRUE(sender.send(s));
  const core::ChunkPolicy expect(core::PolicyKind::seed, {8192, 1448, true});
  EXPECT_EQ(accepted_sizes(ops), expect.plan(16384));
  EXPECT_EQ(ops.received, bytes);
}


// ---- auto and robust (core/chunk_policy.h, docs/STACKS.md §8) --------------------------------

TEST_F(SenderTest, AutoIsAPlainSendWithoutAPerSendQuota) {
  // The library's default is auto, told by the platform whether the kernel charges per send.
  EXPECT_EQ(SenderOptions{}.policy, core::PolicyKind::automatic);
  EXPECT_EQ(SenderOptions{}.per_send_quota, kKernelChargesPerSend);
  SenderOptions plain;  // Linux, BSD, macOS: SO_SNDBUF freed per ACKed byte
  plain.per_send_quota = false;
  ChunkedSender sender(ops, 3, plain);
  ASSERT_TRUE(sender.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{8192}));
  EXPECT_TRUE(ops.options_set.empty());  // no TCP_NODELAY, no SO_SNDBUF
  ops.calls.clear();
  // Over a per-send quota (Winsock, or the AFD emulator) auto is robust: 1448 x 4 + 2400.
  SenderOptions afd{core::PolicyKind::automatic, 0};
  afd.per_send_quota = true;
  ChunkedSender quota(ops, 3, afd);
  ASSERT_TRUE(quota.send({&one, 1}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{1448, 1448, 1448, 1448, 2400}));
}

TEST_F(SenderTest, RobustSetsNodelayForTheSpanOfASendAtOrAboveTheQuotaBelowTwoMss) {
  ops.sndbuf_reported = 4000;  // tracked 2000 < 2 * 1448
  ChunkedSender sender(ops, 3, {core::PolicyKind::robust, 0});
  ASSERT_TRUE(sender.send({&one, 1}));
  // One-MSS chunks (the seed's rule for M < S < 2M, core/chunk_policy.h), Nagle off meanwhile.
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{1448, 1448, 1448, 1448, 1448, 952}));
  using Opt = std::pair<SocketOption, int>;
  EXPECT_EQ(ops.options_set, (std::vector<Opt>{{SocketOption::tcp_nodelay, 1}, {SocketOption::tcp_nodelay, 0}}));
  ops.options_set.clear();
  const core::ByteSlice small{data.data(), 1000};  // below the quota: Nagle untouched
  ASSERT_TRUE(sender.send({&small, 1}));
  EXPECT_TRUE(ops.options_set.empty());
}

TEST_F(SenderTest, RobustSetsNodelayWhenASendBelowAQuotaUnderOneMssWouldBlock) {
  ops.sndbuf_reported = 2000;  // tracked 1000 <= MSS 1448: robust sends whole
  ops.nonblocking = true;
  ops.script = {FakeSocketOps::error(EAGAIN), FakeSocketOps::all()};
  ChunkedSender sender(ops, 3, {core::PolicyKind::robust, 0});
  const core::ByteSlice small{data.data(), 500};
  using Opt = std::pair<SocketOption, int>;
  auto r = sender.send({&small, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (SendOutcome{0, true}));
  // The quota is full: Nagle off until this request's last byte is out (core nodelay_when_blocked).
  EXPECT_EQ(ops.options_set, (std::vector<Opt>{{SocketOption::tcp_nodelay, 1}}));
  ASSERT_TRUE(sender.send({&small, 1}));
  EXPECT_EQ(ops.options_set, (std::vector<Opt>{{SocketOption::tcp_nodelay, 1}, {SocketOption::tcp_nodelay, 0}}));
}

TEST_F(SenderTest, RobustRaisesSoSndbufWhenAllowed) {
  SenderOptions o{core::PolicyKind::robust, 0};
  o.allow_raise_sndbuf = true;
  ChunkedSender sender(ops, 3, o);
  ASSERT_TRUE(sender.send({&one, 1}));
  // 8192 >= SO_SNDBUF 8192: raised to 16 MSS = 23168 (KB823764), then 5792 + 2400.
  ASSERT_FALSE(ops.options_set.empty());
  EXPECT_EQ(ops.options_set.front(), (std::pair<SocketOption, int>{SocketOption::send_buffer, 23168}));
  EXPECT_EQ(accepted_sizes(ops), (std::vector<std::size_t>{5792, 2400}));
}

// Jumbo MSS, MSS < SO_SNDBUF < 2 MSS: robust raises to 4 MSS only where the peer's window
// (TCP_INFO snd_wnd / SIO_TCP_INFO SndWnd) holds it (core::ChunkPolicy::recommended_sndbuf).
TEST_F(SenderTest, RobustRaisesAtJumboMssOnlyWhenThePeersWindowHoldsIt) {
  const std::vector<std::byte> big = pattern(65536);
  const core::ByteSlice whole{big.data(), big.size()};
  SenderOptions o{core::PolicyKind::robust, 8960};
  o.allow_raise_sndbuf = true;
  ops.sndbuf_reported = 2 * 16384;
  ops.info->snd_wnd = 65535;  // a Linux receiver's SYN-ACK window
  ChunkedSender wide(ops, 3, o);
  ASSERT_TRUE(wide.send({&whole, 1}));
  ASSERT_FALSE(ops.options_set.empty());
  EXPECT_EQ(ops.options_set.front(), (std::pair<SocketOption, int>{SocketOption::send_buffer, 4 * 8960}));
  EXPECT_GE(ops.tcp_info_calls, 1);

  FakeSocketOps narrow_ops;
  narrow_ops.sndbuf_reported = 2 * 16384;
  narrow_ops.info->snd_wnd = 17920;  // OpenBSD's 16384 rounded up to the MSS: no room for 4 MSS
  ChunkedSender narrow(narrow_ops, 3, o);
  ASSERT_TRUE(narrow.send({&whole, 1}));
  for (const auto& [opt, value] : narrow_ops.options_set) EXPECT_NE(opt, SocketOption::send_buffer) << value;
  EXPECT_EQ(accepted_sizes(narrow_ops).front(), 8960u);  // one-MSS chunks

  FakeSocketOps unknown_ops;  // the window unknown (Wine, an old kernel): no raise
  unknown_ops.sndbuf_reported = 2 * 16384;
  ChunkedSender unknown(unknown_ops, 3, o);
  ASSERT_TRUE(unknown.send({&whole, 1}));
  for (const auto& [opt, value] : unknown_ops.options_set) EXPECT_NE(opt, SocketOption::send_buffer) << value;
}

}  // namespace
}  // namespace ackstall::net
