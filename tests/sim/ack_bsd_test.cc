#include "ackstall/sim/ack_bsd.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

SegmentArrival seg(Nanos now, bool psh = false, std::int64_t len = 1460) {
  return {.now = now, .len = len, .psh = psh, .unacked = len, .rcv_wnd = 17520, .advmss = 1460};
}

TEST(OpenBsdAck, EverySecondSegmentAckedAtOnce) {
  BsdAckPolicy p(Nanos::ms(200), false);
  auto d = p.on_segment(seg(Nanos::us(10)));
  EXPECT_FALSE(d.ack_now);
  EXPECT_EQ(d.arm_at, Nanos::us(10) + Nanos::ms(200));
  EXPECT_TRUE(p.pending());
  d = p.on_segment(seg(Nanos::us(20), false, 100));  // any size
  EXPECT_TRUE(d.ack_now);
  p.on_ack_sent(2);
  EXPECT_FALSE(p.pending());
}

TEST(OpenBsdAck, OneShotTimerNotRearmedAndPshIgnoredByDefault) {
  BsdAckPolicy p(Nanos::ms(200), false);
  auto d = p.on_segment(seg(Nanos::ms(1), true));  // PSH: ignored with ackonpush = 0
  EXPECT_FALSE(d.ack_now);
  EXPECT_TRUE(p.on_timer());  // at 201 ms: the lone segment waited the full 200 ms
}

TEST(OpenBsdAck, AckOnPush) {
  BsdAckPolicy p(Nanos::ms(200), true);
  EXPECT_TRUE(p.on_segment(seg(Nanos::ms(1), true)).ack_now);
  EXPECT_FALSE(p.on_segment(seg(Nanos::ms(2), false)).ack_now);
}

TEST(OpenBsdAck, AnyAckSentCancelsTheDelayedAck) {
  BsdAckPolicy p(Nanos::ms(200), false);
  p.on_segment(seg(Nanos::ms(1)));
  p.on_ack_sent(1);  // e.g. a window update on read
  EXPECT_FALSE(p.on_timer());
  EXPECT_FALSE(p.on_segment(seg(Nanos::ms(3))).ack_now);  // counting restarts
}

TEST(FreeBsdAck, HundredMilliseconds) {
  BsdAckPolicy p(Nanos::ms(100), false);
  EXPECT_EQ(p.on_segment(seg(Nanos::zero())).arm_at, Nanos::ms(100));
}

TEST(BsdTickAck, FiresAtTheNextGlobalTickBoundary) {
  BsdAckPolicy p(Nanos::ms(200), false, Nanos::ms(200), Nanos::ms(50));
  EXPECT_EQ(p.on_segment(seg(Nanos::ms(60))).arm_at, Nanos::ms(250));
  p.on_ack_sent(1);
  EXPECT_EQ(p.on_segment(seg(Nanos::ms(250))).arm_at, Nanos::ms(450));  // strictly after now
  p.on_ack_sent(1);
  EXPECT_EQ(p.on_segment(seg(Nanos::ms(10))).arm_at, Nanos::ms(50));   // before the first tick
  // Delay is uniform in (0, 200] ms: never more than one tick.
  for (int t = 0; t < 1000; t += 7) {
    p.on_ack_sent(1);
    const auto d = p.on_segment(seg(Nanos::ms(t)));
    EXPECT_GT(d.arm_at, Nanos::ms(t));
    EXPECT_LE(d.arm_at - Nanos::ms(t), Nanos::ms(200));
  }
}

}  // namespace
}  // namespace ackstall::sim
