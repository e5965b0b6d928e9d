// The `isb` policy: SO_SNDBUF follows the ideal send backlog (at most one query per interval),
// the seed policy re-chunks under it, and a failed query falls back to plain seed.
#include "ackstall/net/ideal_send_backlog.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(parse_net_policy("isb"), (NetPolicy{core::PolicyKind::seed, true}));
  EXPECT_EQ(parse_net_policy("seed"), (NetPolicy{core::PolicyKind::seed, false}));
  EXPECT_EQ(parse_net_policy("cygwin"), (NetPolicy{core::PolicyKind::cygwin, false}));
  EXPECT_FALSE(parse_net_policy("ISB"));
  EXPECT_EQ(to_string(NetPolicy{core::PolicyKind::seed, true}), "isb");
  EXPECT_EQ(to_string(NetPolicy{core::PolicyKind::none, false}), "none");
}

TEST(IsbTuner, SetsTheSendBufferToTheIsbAndTheSeedRechunks) {
  IsbOps ops;
  ops.fake.sndbuf_reported = 8192;
  ops.isb = std::int64_t{65536};
  ChunkedSender sender(ops, 3, {core::PolicyKind::seed, 1460});
  IsbTuner tuner(ops, sender);
  const auto t0 = IsbTuner::Clock::time_point{} + 10s;
  auto r = tuner.update(t0);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->provenance, Provenance::measured);
  EXPECT_EQ(r->source, "SIO_IDEAL_SEND_BACKLOG_QUERY");
  EXPECT_EQ(tuner.applied(), 65536);
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->params().sndbuf, 65536);
  EXPECT_EQ(policy->base_chunk(), 1460 * 44);
}

TEST(IsbTuner, QueriesAtMostOncePerInterval) {
  IsbOps ops;
  ops.isb = std::int64_t{32768};
  ChunkedSender sender(ops, 3, {core::PolicyKind::seed, 1460});
  IsbTuner tuner(ops, sender, 1s);
  const auto t0 = IsbTuner::Clock::time_point{} + 10s;
  ASSERT_TRUE(tuner.update(t0));
  ASSERT_TRUE(tuner.update(t0 + 999ms));
  EXPECT_EQ(ops.queries, 1);
  const int sets = ops.fake.set_calls;
  ops.isb = std::int64_t{32768};  // unchanged: no second setsockopt
  ASSERT_TRUE(tuner.update(t0 + 1s));
  EXPECT_EQ(ops.queries, 2);
  EXPECT_EQ(ops.fake.set_calls, sets);
  ops.isb = std::int64_t{131072};
  ASSERT_TRUE(tuner.update(t0 + 2s));
  EXPECT_EQ(tuner.applied(), 131072);
  EXPECT_EQ(ops.fake.set_calls, sets + 1);
}

TEST(IsbTuner, FailedQueryFallsBackToSeedUnchanged) {
  IsbOps ops;  // ENOPROTOOPT, as on POSIX and under Wine
  ops.fake.sndbuf_reported = 8192;
  ChunkedSender sender(ops, 3, {core::PolicyKind::seed, 1460});
  IsbTuner tuner(ops, sender);
  auto r = tuner.update();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->provenance, Provenance::fallback);
  EXPECT_EQ(r->source.rfind("fallback: seed policy on the current SO_SNDBUF (", 0), 0u)
      << r->source;
  EXPECT_FALSE(tuner.applied());
  EXPECT_EQ(ops.fake.set_calls, 0);
  auto policy = sender.policy();
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->params().sndbuf, 8192);
  EXPECT_EQ(policy->kind(), core::PolicyKind::seed);
}

TEST(IsbTuner, RealSocketsSayWhereTheQuotaCameFrom) {
  auto& ops = system_socket_ops();
  const auto r = query_ideal_send_backlog(ops, kInvalidSocket);
  EXPECT_EQ(r.provenance, Provenance::fallback);  // no socket: the query fails everywhere
  EXPECT_FALSE(r.source.empty());
}

}  // namespace
}  // namespace ackstall::net
