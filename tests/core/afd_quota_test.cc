// core::AfdQuota: Winsock AFD's per-send quota (docs/STACKS.md §1).
#include "ackstall/core/afd_quota.h"

#include <gtest/gtest.h>

namespace ackstall::core {
namespace {

TEST(AfdQuota, ChargesWholeSendsAndAllowsWhileBelowQuota) {
  AfdQuota q(8192);
  EXPECT_TRUE(q.may_send());
  q.charge(8191);  // seed: bufferedbytes < so_sndbuf -> the next send is still allowed
  EXPECT_TRUE(q.may_send());
  q.charge(20000);  // charged whole, far over the quota
  EXPECT_FALSE(q.may_send());
  EXPECT_EQ(q.charged(), 28191);
  EXPECT_EQ(q.outstanding_sends(), 2u);
  EXPECT_EQ(q.sent(), 28191);
}

TEST(AfdQuota, ReleasesOnlyWhenTheLastByteOfASendIsAcked) {
  AfdQuota q(8192);
  q.charge(10000);
  q.charge(10000);
  EXPECT_EQ(q.acknowledge(9999), 0u);  // per send, not per packet
  EXPECT_EQ(q.charged(), 20000);
  EXPECT_EQ(q.acknowledge(10000), 1u);
  EXPECT_EQ(q.charged(), 10000);
  EXPECT_EQ(q.released_end(), 10000);
  EXPECT_FALSE(q.may_send());
  EXPECT_EQ(q.acknowledge(5000), 0u);      // older cumulative values are ignored
  EXPECT_EQ(q.acknowledge(1 << 30), 1u);  // clamped to what was sent
  EXPECT_EQ(q.acked(), 20000);
  EXPECT_EQ(q.charged(), 0);
  EXPECT_TRUE(q.may_send());
}

TEST(AfdQuota, CumulativeCompletionReleasesMergedSends) {
  AfdQuota q(100);
  for (int i = 0; i < 5; ++i) q.charge(30);
  EXPECT_EQ(q.acknowledge(150), 5u);  // one id for five merged sends
  EXPECT_EQ(q.outstanding_sends(), 0u);
  q.charge(0);
  q.charge(-5);
  EXPECT_EQ(q.outstanding_sends(), 0u);
  q.set_quota(10);
  q.charge(10);
  EXPECT_FALSE(q.may_send());
}

TEST(AfdQuota, Kb214397RulesOneAndTwoCompleteABlockingSendAtOnce) {
  AfdQuota q(8192);
  EXPECT_TRUE(q.completes_at_once());  // rule 1: within quota
  q.charge(65536);
  EXPECT_FALSE(q.may_send());          // the nonblocking test fails...
  EXPECT_TRUE(q.completes_at_once());  // ...but rule 2 holds: only one send buffered
  q.charge(100);
  EXPECT_FALSE(q.completes_at_once());  // rule 3: over quota, two buffered
}

TEST(AfdQuota, Kb214397RuleThreeWithholdsUntilTheSendsBeforeAreWithinQuota) {
  AfdQuota q(8192);
  q.charge(6000);
  q.charge(6000);
  q.charge(6000);  // the newest is withheld: 12000 bytes in two sends before it
  EXPECT_FALSE(q.withheld_may_complete());
  EXPECT_EQ(q.acknowledge(6000), 1u);  // one send left before it: rule 2
  EXPECT_TRUE(q.withheld_may_complete());

  AfdQuota small(8192);
  for (int i = 0; i < 4; ++i) small.charge(3000);  // 9000 bytes in three sends before the 4th
  EXPECT_FALSE(small.withheld_may_complete());
  small.acknowledge(3000);  // 6000 in two sends: back within quota (rule 1)
  EXPECT_TRUE(small.withheld_may_complete());
}

TEST(AfdQuota, SendEndsInFindsTheLastByteOfEachOutstandingSend) {
  AfdQuota q(8192);
  q.charge(2920);  // ends at 2920
  q.charge(1460);  // ends at 4380
  EXPECT_FALSE(q.send_ends_in(0, 1460));
  EXPECT_TRUE(q.send_ends_in(1460, 2920));
  EXPECT_FALSE(q.send_ends_in(2920, 4000));
  EXPECT_TRUE(q.send_ends_in(2920, 4380));
  q.acknowledge(2920);
  EXPECT_FALSE(q.send_ends_in(1460, 2920));  // released sends are forgotten
}

TEST(AfdQuota, StaysExactOverManyWrapsOfItsRing) {
  AfdQuota q(1000);
  std::int64_t acked = 0;
  for (int i = 1; i <= 10000; ++i) {
    q.charge(i % 7 + 1);
    if (i % 3 == 0) {
      acked = q.sent() - 1;
      q.acknowledge(acked);
    }
    ASSERT_EQ(q.charged(), q.sent() - q.released_end());
    ASSERT_LE(q.outstanding_sends(), 3u);
  }
}

}  // namespace
}  // namespace ackstall::core
