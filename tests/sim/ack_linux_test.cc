#include "ackstall/sim/ack_linux.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

SegmentArrival seg(Nanos now, std::int64_t len, std::int64_t unacked, bool psh = false) {
  return {.now = now, .len = len, .psh = psh, .unacked = unacked, .rcv_wnd = 65536,
          .advmss = 1448, .rto = Nanos::ms(200), .srtt = Nanos::us(100)};
}

TEST(LinuxAck, QuickackAtStartThenEverySecondFullSegment) {
  LinuxAckPolicy p(LinuxAckFlavor::current, Nanos::ms(40), Nanos::ms(200), 16);
  // First data: quickack mode (min(max(65536 / (2 * 536), 2), 16) = 16 quick ACKs).
  EXPECT_TRUE(p.on_segment(seg(Nanos::zero(), 1448, 1448)).ack_now);
  p.on_ack_sent(1);
  EXPECT_GT(p.quick(), 0);
  EXPECT_EQ(p.rcv_mss(), 1448);
  // Use up the quick ACKs.
  for (int i = 1; i < 40 && p.quick() > 0; ++i) {
    p.on_segment(seg(Nanos::us(i * 10), 1448, 1448));
    p.on_ack_sent(1);
  }
  ASSERT_EQ(p.quick(), 0);
  // Now: one full segment is delayed, the second (> rcv_mss un-ACKed) is ACKed at once.
  const auto d = p.on_segment(seg(Nanos::ms(1), 1448, 1448));
  EXPECT_FALSE(d.ack_now);
  EXPECT_FALSE(d.arm_at.is_never());
  EXPECT_TRUE(p.on_segment(seg(Nanos::ms(1) + Nanos::us(5), 1448, 2896)).ack_now);
}

// __tcp_ack_snd_check (6.1): the second full segment is ACKed at once only if the window would
// not shrink; with the first segment still unread it would, and the reader's read ACKs both
// (tcp_cleanup_rbuf: more than one rcv_mss un-ACKed) -- or three, if a third arrived meanwhile.
TEST(LinuxPingpong, SecondSegmentWaitsForTheReadWhileTheWindowWouldShrink) {
  LinuxAckPolicy p(LinuxAckFlavor::pingpong, Nanos::ms(40), Nanos::ms(200), 16);
  EXPECT_FALSE(p.on_segment(seg(Nanos::zero(), 1448, 1448)).ack_now);
  SegmentArrival second = seg(Nanos::us(123), 1448, 2896);
  second.window_ok = false;
  EXPECT_FALSE(p.on_segment(second).ack_now);
  SegmentArrival third = seg(Nanos::us(246), 1448, 4344);
  third.window_ok = false;
  EXPECT_FALSE(p.on_segment(third).ack_now);
  EXPECT_TRUE(p.pending());
  EXPECT_TRUE(p.on_read({.now = Nanos::us(300), .copied = 4344, .unacked = 4344, .drained = true}).ack_now);
  p.on_ack_sent(3);
  SegmentArrival ok = seg(Nanos::us(400), 1448, 1448);
  EXPECT_FALSE(p.on_segment(ok).ack_now);
  ok = seg(Nanos::us(523), 1448, 2896);  // the reader kept up: the window is whole again
  EXPECT_TRUE(p.on_segment(ok).ack_now);
}

// tcp_grow_window's "icsk_ack.quick |= 1": a segment that grows rcv_ssthresh is quick-ACKed,
// except in pingpong mode.
TEST(LinuxAck, GrowingTheWindowQuickAcksUnlessPingpong) {
  LinuxAckPolicy cur(LinuxAckFlavor::current, Nanos::ms(40), Nanos::ms(200), 16);
  cur.on_segment(seg(Nanos::zero(), 1448, 1448));
  cur.on_ack_sent(1);
  while (cur.quick() > 0) {
    cur.on_segment(seg(Nanos::us(5), 1448, 1448));
    cur.on_ack_sent(1);
  }
  SegmentArrival g = seg(Nanos::ms(1), 1448, 1448);
  g.window_grew = true;
  EXPECT_TRUE(cur.on_segment(g).ack_now);
  LinuxAckPolicy pp(LinuxAckFlavor::pingpong, Nanos::ms(40), Nanos::ms(200), 16);
  g.now = Nanos::zero();
  EXPECT_FALSE(pp.on_segment(g).ack_now);
}

TEST(LinuxAck, ReadThatDrainsAShortSegmentAcks) {
  LinuxAckPolicy p(LinuxAckFlavor::v2_6, Nanos::ms(40), Nanos::ms(200), 16);
  p.on_segment(seg(Nanos::zero(), 1448, 1448));
  p.on_ack_sent(1);
  while (p.quick() > 0) {
    p.on_segment(seg(Nanos::us(5), 1448, 1448));
    p.on_ack_sent(1);
  }
  const auto d = p.on_segment(seg(Nanos::ms(1), 456, 456, true));  // short (PUSHED)
  EXPECT_FALSE(d.ack_now);
  EXPECT_TRUE(p.on_read({.now = Nanos::ms(1), .copied = 456, .unacked = 456, .drained = true}).ack_now);
}

TEST(LinuxPingpong, LoneFullSegmentWaitsFortyMilliseconds) {
  LinuxAckPolicy p(LinuxAckFlavor::pingpong, Nanos::ms(40), Nanos::ms(200), 16);
  EXPECT_TRUE(p.pingpong());
  // Pingpong: no quickack even for the first segment.
  auto d = p.on_segment(seg(Nanos::zero(), 1448, 1448));
  EXPECT_FALSE(d.ack_now);
  EXPECT_EQ(d.arm_at, Nanos::ms(40));
  // A read of a full, non-PSH segment does not ACK in pingpong (§7: L = 11 * 1448 stalls).
  EXPECT_FALSE(p.on_read({.now = Nanos::us(10), .copied = 1448, .unacked = 1448, .drained = true}).ack_now);
  EXPECT_TRUE(p.on_timer());
  EXPECT_FALSE(p.pingpong());  // delayed ACK missed: pingpong left ...
  p.on_ack_sent(1);
  p.on_read({.now = Nanos::ms(41), .copied = 0, .unacked = 0, .drained = true});
  EXPECT_TRUE(p.pingpong());   // ... and re-entered by the application's TCP_QUICKACK=0
}

TEST(LinuxAck, AtoAdaptsButStaysWithinBounds) {
  LinuxAckPolicy p(LinuxAckFlavor::current, Nanos::ms(40), Nanos::ms(200), 2);
  Nanos t = Nanos::zero();
  for (int i = 0; i < 200; ++i) {
    t += Nanos::ms(i % 5 == 0 ? 30 : 1);
    p.on_segment(seg(t, 1448, 1448));
    p.on_ack_sent(1);
    EXPECT_GE(p.ato(), Nanos::ms(20));
    EXPECT_LE(p.ato(), Nanos::ms(200));
  }
}

// ack.jiffy: the delayed-ACK timer is set in jiffies (sk_reset_timer), so it fires on the next
// jiffy boundary at or after now + ato: 40-44 ms at HZ 250, as the lab measured (40.3-43.4 ms).
TEST(LinuxAck, DelayedAckFiresOnAJiffyBoundary) {
  LinuxAckPolicy exact(LinuxAckFlavor::pingpong, Nanos::ms(40), Nanos::ms(200), 16);
  LinuxAckPolicy hz250(LinuxAckFlavor::pingpong, Nanos::ms(40), Nanos::ms(200), 16, Nanos::ms(4));
  const Nanos at = Nanos::ms(1) + Nanos::us(300);
  EXPECT_EQ(exact.on_segment(seg(at, 1448, 1448)).arm_at, at + Nanos::ms(40));
  EXPECT_EQ(hz250.on_segment(seg(at, 1448, 1448)).arm_at, Nanos::ms(44));  // 41.3 ms -> 44 ms
}

}  // namespace
}  // namespace ackstall::sim
