#include "ackstall/sim/congestion.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

TEST(NewReno, InitialWindowRfc3390AndProfile) {
  EXPECT_EQ(NewReno(1460, 0, 2).cwnd(), 4380);  // min(4*1460, max(2*1460, 4380))
  EXPECT_EQ(NewReno(536, 0, 2).cwnd(), 2144);   // 4 * 536
  EXPECT_EQ(NewReno(1460, 2, 2).cwnd(), 2920);
  EXPECT_EQ(NewReno(1460, 10, 0).cwnd(), 14600);
}

TEST(NewReno, SlowStartPerAckThenCongestionAvoidance) {
  NewReno cc(1000, 2, 2);
  cc.on_new_ack(2000, 2001);
  EXPECT_EQ(cc.cwnd(), 3000);  // + one MSS per ACK
  cc.on_timeout(8000);         // ssthresh = 4000, cwnd = 1 MSS
  EXPECT_EQ(cc.cwnd(), 1000);
  EXPECT_EQ(cc.ssthresh(), 4000);
  for (int i = 0; i < 3; ++i) cc.on_new_ack(1000, 0);
  EXPECT_EQ(cc.cwnd(), 4000);
  cc.on_new_ack(1000, 0);      // cwnd == ssthresh: still slow start (BSD: cw > ssthresh)
  EXPECT_EQ(cc.cwnd(), 5000);
  cc.on_new_ack(1000, 0);      // above ssthresh: mss*mss/cwnd
  EXPECT_EQ(cc.cwnd(), 5200);
}

TEST(NewReno, FastRetransmitAndRecovery) {
  NewReno cc(1000, 10, 2);
  EXPECT_FALSE(cc.on_dup_ack(10000, 10001));
  EXPECT_FALSE(cc.on_dup_ack(10000, 10001));
  EXPECT_TRUE(cc.on_dup_ack(10000, 10001));  // third
  EXPECT_TRUE(cc.in_recovery());
  EXPECT_EQ(cc.ssthresh(), 5000);
  EXPECT_EQ(cc.cwnd(), 8000);
  cc.on_dup_ack(10000, 10001);
  EXPECT_EQ(cc.cwnd(), 9000);                 // inflation
  EXPECT_TRUE(cc.on_new_ack(2000, 3001));     // partial ACK: retransmit the next hole
  EXPECT_TRUE(cc.in_recovery());
  EXPECT_FALSE(cc.on_new_ack(7000, 10001));   // full ACK
  EXPECT_FALSE(cc.in_recovery());
  EXPECT_EQ(cc.cwnd(), 5000);
}

TEST(NewReno, IdleRestart) {
  NewReno cc(1460, 2, 2);
  for (int i = 0; i < 10; ++i) cc.on_new_ack(1460, 0);
  cc.on_idle_restart();
  EXPECT_EQ(cc.cwnd(), 2920);
  NewReno never(1460, 10, 0);
  never.on_idle_restart();
  EXPECT_EQ(never.cwnd(), 14600);
}

}  // namespace
}  // namespace ackstall::sim
