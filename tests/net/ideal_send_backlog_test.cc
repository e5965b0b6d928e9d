// Following the ideal send backlog (ChunkedSender, SenderOptions::follow_isb): SO_SNDBUF follows
// it (at most one query per interval), the policy re-chunks under it, a failed query keeps the
// SO_SNDBUF; `isb` = seed following it, `auto` follows it only where it resolves to robust.
#include "ackstall/net/ideal_send_backlog.h"

#include <gtest/gtest.h>

#include <vector>

#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

using namespace std::chrono_literals;

// FakeSocketOps plus a scripted ISB.
class IsbOps final : public SocketOps {
 public:
  testing::FakeSocketOps fake;
  IsbOps() { fake.doubled = false; }  // Winsock reports the quota as set
  Result<std::int64_t> isb = tl::unexpected(Error{"ideal_send_backlog", ENOPROTOOPT, {}});
  int queries = 0;

  Result<std::size_t> send(NativeSocket s, std::span<const core::ByteSlice> b,
                              SendFlags f) override {
    return fake.send(s, b, f);
  }
  Result<void> wait_writable(NativeSocket s, int t) override { return fake.wait_writable(s, t); }
  Result<int> get_option(NativeSocket s, SocketOption o) override { return fake.get_option(s, o); }
  Result<void> set_option(NativeSocket s, SocketOption o, int v) override {
    return fake.set_option(s, o, v);
  }
  Result<bool> is_nonblocking(NativeSocket s) override { return fake.is_nonblocking(s); }
  Result<TcpInfo> tcp_info(NativeSocket s) override { return fake.tcp_info(s); }
  Result<InterfaceMtu> interface_mtu(NativeSocket s) override { return fake.interface_mtu(s); }
  Result<SocketKind> socket_kind(NativeSocket s) override { return fake.socket_kind(s); }
  bool send_buffer_reported_doubled() const noexcept override { return false; }
  Result<std::int64_t> ideal_send_backlog(NativeSocket) override {
    ++queries;
    return isb;
  }
};

TEST(NetPolicy, ParsesIsbAndTheCorePolicies) {
  using core::SndbufRule;
  // `isb` is the old name of a pair: the seed's cut, SO_SNDBUF following the ideal send backlog.
  EXPECT_EQ(parse_net_policy("isb"), (NetPolicy{core::PolicyKind::seed, SndbufRule::ideal_backlog}));
  EXPECT_TRUE(parse_net_policy("isb")->isb());
  EXPECT_EQ(parse_net_policy("seed"), (NetPolicy{core::PolicyKind::seed, SndbufRule::keep}));
  EXPECT_EQ(parse_net_policy("cygwin"), (NetPolicy{core::PolicyKind::cygwin, SndbufRule::keep}));
  EXPECT_FALSE(parse_net_policy("ISB"));
  EXPECT_EQ(to_string(NetPolicy{core::PolicyKind::seed, SndbufRule::ideal_backlog}), "isb");
  EXPECT_EQ(to_string(NetPolicy{core::PolicyKind::none, SndbufRule::keep}), "none");
  EXPECT_TRUE(sender_options(*parse_net_policy("isb")).follow_isb);
  EXPECT_TRUE(sender_options(NetPolicy{core::PolicyKind::robust, SndbufRule::raise}).allow_raise_sndbuf);
  // The SO_SNDBUF rules by name (core/chunk_policy.h).
  EXPECT_EQ(core::parse_sndbuf_rule("ideal-backlog"), SndbufRule::ideal_backlog);
  EXPECT_EQ(core::parse_sndbuf_rule("raise"), SndbufRule::raise);
  EXPECT_FALSE(core::parse_sndbuf_rule("isb"));
  EXPECT_EQ(core::sndbuf_rule_names(), (std::vector<std::string>{"keep", "raise", "ideal-backlog"}));
}

SenderOptions isb_options(std::chrono::milliseconds interval = 1s) {
  SenderOptions o = sender_options(*parse_net_policy("isb"));
  o.mss = 1460;
  o.isb_interval = interval;
  return o;
}

Result<SendOutcome> send_bytes(ChunkedSender& sender, std::size_t n) {
  static const std::vector<char> data(1 << 20, 'x');
  const core::ByteSlice slice{data.data(), n};
  return sender.send({&slice, 1});
}

TEST(IsbFollow, SetsTheSendBufferToTheIsbAndTheSeedRechunks) {
  IsbOps ops;
  ops.fake.sndbuf_reported = 8192;
  ops.isb = std::int64_t{65536};
  ChunkedSender sender(ops, 3, isb_options());
  EXPECT_TRUE(sender.follows_isb());
  const auto t0 = ChunkedSender::Clock::time_point{} + 10s;
  ASSERT_TRUE(sender.update_isb(t0));
  ASSERT_TRUE(sender.isb_reading());
  EXPECT_EQ(sender.isb_reading()->provenance, Provenance::measured);
  EXPECT_EQ(sender.isb_reading()->source, "SIO_IDEAL_SEND_BACKLOG_QUERY");
  EXPECT_EQ(sender.isb_applied(), 65536);
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->params().sndbuf, 65536);
  EXPECT_EQ(policy->base_chunk(), 1460 * 44);
}

TEST(IsbFollow, QueriesAtMostOncePerInterval) {
  IsbOps ops;
  ops.isb = std::int64_t{32768};
  ChunkedSender sender(ops, 3, isb_options(1s));
  const auto t0 = ChunkedSender::Clock::time_point{} + 10s;
  ASSERT_TRUE(sender.update_isb(t0));
  ASSERT_TRUE(sender.update_isb(t0 + 999ms));
  EXPECT_EQ(ops.queries, 1);
  const int sets = ops.fake.set_calls;
  ops.isb = std::int64_t{32768};  // unchanged: no second setsockopt
  ASSERT_TRUE(sender.update_isb(t0 + 1s));
  EXPECT_EQ(ops.queries, 2);
  EXPECT_EQ(ops.fake.set_calls, sets);
  ops.isb = std::int64_t{131072};
  ASSERT_TRUE(sender.update_isb(t0 + 2s));
  EXPECT_EQ(sender.isb_applied(), 131072);
  EXPECT_EQ(ops.fake.set_calls, sets + 1);
}

TEST(IsbFollow, EachSendQueriesWhenDueAndTheChunksFollow) {
  IsbOps ops;
  ops.fake.sndbuf_reported = 8192;
  ops.isb = std::int64_t{16384};
  ChunkedSender sender(ops, 3, isb_options(0ms));  // due before every send
  ASSERT_TRUE(send_bytes(sender, 100000));
  EXPECT_EQ(ops.queries, 1);
  EXPECT_EQ(ops.fake.sndbuf_reported, 16384);
  EXPECT_EQ(sender.policy()->base_chunk(), 1460 * 11);  // seed under 16384
  ops.isb = std::int64_t{65536};
  ASSERT_TRUE(send_bytes(sender, 100000));
  EXPECT_EQ(ops.queries, 2);
  EXPECT_EQ(sender.policy()->base_chunk(), 1460 * 44);  // re-chunked under the new quota
}

TEST(IsbFollow, AutoFollowsOnlyWhereItResolvesToRobust) {
  IsbOps ops;
  ops.isb = std::int64_t{65536};
  SenderOptions windows;  // auto over a per-send quota (what Windows is)
  windows.mss = 1460;
  windows.per_send_quota = true;
  ChunkedSender robust(ops, 3, windows);
  EXPECT_TRUE(robust.follows_isb());
  ASSERT_TRUE(send_bytes(robust, 100000));
  EXPECT_EQ(ops.queries, 1);
  EXPECT_EQ(robust.policy()->effective(), core::PolicyKind::robust);
  EXPECT_EQ(robust.policy()->params().sndbuf, 65536);
  EXPECT_EQ(robust.policy()->base_chunk(), 1460 * 11);  // robust: a quarter of the ISB quota

  SenderOptions posix = windows;  // auto where the kernel frees per ACKed byte: a plain send
  posix.per_send_quota = false;
  ChunkedSender plain(ops, 3, posix);
  EXPECT_FALSE(plain.follows_isb());
  ASSERT_TRUE(send_bytes(plain, 100000));
  EXPECT_EQ(ops.queries, 1);  // never asked
  EXPECT_FALSE(plain.isb_reading());

  SenderOptions off = windows;  // the application opted out
  off.follow_isb = false;
  ChunkedSender kept(ops, 3, off);
  ASSERT_TRUE(send_bytes(kept, 100000));
  EXPECT_EQ(ops.queries, 1);
}

TEST(IsbFollow, FailedQueryKeepsTheSendBuffer) {
  IsbOps ops;  // ENOPROTOOPT, as on POSIX
  ops.fake.sndbuf_reported = 8192;
  ChunkedSender sender(ops, 3, isb_options());
  ASSERT_TRUE(sender.update_isb());
  ASSERT_TRUE(sender.isb_reading());
  const auto& r = *sender.isb_reading();
  EXPECT_EQ(r.provenance, Provenance::fallback);
  EXPECT_EQ(r.source.rfind("fallback: the policy keeps the current SO_SNDBUF (", 0), 0u) << r.source;
#if !defined(_WIN32)  // said plainly, not as strerror(ENOPROTOOPT)
  EXPECT_NE(r.source.find("this OS has no ideal send backlog: SIO_IDEAL_SEND_BACKLOG_QUERY is Windows-only"),
            std::string::npos) << r.source;
  EXPECT_EQ(r.source.find("Protocol not available"), std::string::npos) << r.source;
#endif
  EXPECT_FALSE(sender.isb_applied());
  EXPECT_EQ(ops.fake.set_calls, 0);
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->params().sndbuf, 8192);
  EXPECT_EQ(policy->kind(), core::PolicyKind::seed);
}

TEST(IsbFollow, FailedSetsockoptIsTheSendsError) {
  IsbOps ops;
  ops.isb = std::int64_t{65536};
  ops.fake.set_option_errors[SocketOption::send_buffer] = ENOBUFS;
  ChunkedSender sender(ops, 3, isb_options());
  auto r = send_bytes(sender, 100);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("setsockopt"), std::string::npos) << r.error().message();
  EXPECT_TRUE(ops.fake.calls.empty());  // nothing was sent
}

TEST(IsbQuery, RealSocketsSayWhereTheQuotaCameFrom) {
  auto& ops = system_socket_ops();
  const auto r = query_ideal_send_backlog(ops, kInvalidSocket);
  EXPECT_EQ(r.provenance, Provenance::fallback);  // no socket: the query fails everywhere
  EXPECT_FALSE(r.source.empty());
}

}  // namespace
}  // namespace ackstall::net
