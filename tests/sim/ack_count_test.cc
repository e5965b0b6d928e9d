#include "ackstall/sim/ack_count.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

SegmentArrival seg(Nanos now, bool psh = false) {
  return {.now = now, .len = 1460, .psh = psh, .unacked = 1460, .rcv_wnd = 16384, .advmss = 1460};
}

TEST(WindowsAck, TcpAckFrequencyTwoAndTimer) {
  CountAckPolicy p(2, Nanos::ms(200), false);
  auto d = p.on_segment(seg(Nanos::zero(), true));  // PSH does not force an ACK
  EXPECT_FALSE(d.ack_now);
  EXPECT_EQ(d.arm_at, Nanos::ms(200));
  EXPECT_TRUE(p.on_segment(seg(Nanos::ms(1))).ack_now);
  p.on_ack_sent(2);
  EXPECT_FALSE(p.pending());
}

TEST(WindowsAck, AckFrequencyOneAcksEverySegment) {
  CountAckPolicy p(1, Nanos::ms(200), false);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(p.on_segment(seg(Nanos::ms(i))).ack_now);
    p.on_ack_sent(1);
  }
}

TEST(Ns3Ack, FirstDataSegmentAckedThenDelAckCount) {
  CountAckPolicy p(2, Nanos::ms(200), true);
  EXPECT_TRUE(p.on_segment(seg(Nanos::zero())).ack_now);
  p.on_ack_sent(1);
  auto d = p.on_segment(seg(Nanos::ms(1)));
  EXPECT_FALSE(d.ack_now);
  EXPECT_EQ(d.arm_at, Nanos::ms(201));
  // The timer is not re-armed by a later segment in the same episode (DelAckTimeout running).
  EXPECT_TRUE(p.on_segment(seg(Nanos::ms(2))).ack_now);
  p.on_ack_sent(2);
  d = p.on_segment(seg(Nanos::ms(3)));
  EXPECT_EQ(d.arm_at, Nanos::ms(203));
  EXPECT_TRUE(p.on_timer());
}

TEST(Ns3Ack, StaleTimerWithNothingPendingSendsNothing) {
  CountAckPolicy p(2, Nanos::ms(200), false);
  p.on_segment(seg(Nanos::zero()));
  p.on_segment(seg(Nanos::ms(1)));
  p.on_ack_sent(2);
  EXPECT_FALSE(p.on_timer());
}

}  // namespace
}  // namespace ackstall::sim
