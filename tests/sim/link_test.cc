#include "ackstall/sim/link.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

TEST(LinkMath, EthernetFramingAndMinimumFrame) {
  const LinkConfig eth = LinkConfig::ethernet_100baset();
  EXPECT_EQ(wire_bytes(eth, 1500), 1538);                 // §5
  EXPECT_EQ(tx_time(eth, 1538), Nanos(123040));           // 123.04 us
  EXPECT_EQ(wire_bytes(eth, 40), 84);                     // bare ACK padded to 64 + 20
  EXPECT_EQ(tx_time(eth, 84), Nanos(6720));               // 6.72 us
  const LinkConfig ppp = LinkConfig::ppp(100'000'000, Nanos::us(50));
  EXPECT_EQ(wire_bytes(ppp, 1500), 1502);
  EXPECT_EQ(wire_bytes(ppp, 40), 42);
}

TEST(LinkMath, Ceilings) {
  const LinkConfig eth;
  EXPECT_NEAR(link_ceiling_mib_s(eth, 1460, 0), 11.32, 0.005);  // the seed's 11.3
  EXPECT_NEAR(link_ceiling_mib_s(eth, 1448, 12), 11.22, 0.005); // with timestamps
}

TEST(LinkDirection, FifoDropTailAndOneOnAir) {
  LinkDirection d(3);
  Segment s;
  bool starts = false;
  s.seq = 1;
  EXPECT_TRUE(d.enqueue(s, starts));
  EXPECT_TRUE(starts);
  s.seq = 2;
  EXPECT_TRUE(d.enqueue(s, starts));
  EXPECT_FALSE(starts);
  s.seq = 3;
  EXPECT_TRUE(d.enqueue(s, starts));
  s.seq = 4;
  EXPECT_FALSE(d.enqueue(s, starts));  // full: dropped
  EXPECT_EQ(d.on_air().seq, 1);
  EXPECT_TRUE(d.tx_done(Nanos(10)));
  EXPECT_EQ(d.on_air().seq, 2);
  EXPECT_TRUE(d.tx_done(Nanos(20)));
  EXPECT_FALSE(d.tx_done(Nanos(30)));
  EXPECT_EQ(d.pop_arrival().seg.seq, 1);
}

// link.burst: a token bucket (sch_tbf) in front of a fast link. Idle time banks credit up to the
// burst; frames that find credit leave at once, the rest at the line rate.
TEST(LinkDirection, TokenBucketBanksIdleTimeUpToTheBurst) {
  LinkDirection wire(100), tbf(100);
  const Nanos t = Nanos::us(123);  // one 1538-byte frame at 100 Mbit/s (123.04 us)
  EXPECT_EQ(wire.finish(Nanos::ms(1), t, Nanos::zero()), Nanos::ms(1) + t);  // a wire: tx time each
  const Nanos bank = 2 * t;  // burst of two frames
  // After a long idle: two frames at once, the third when one frame's credit has built up.
  EXPECT_EQ(tbf.finish(Nanos::ms(10), t, bank), Nanos::ms(10));
  EXPECT_EQ(tbf.finish(Nanos::ms(10), t, bank), Nanos::ms(10));
  EXPECT_EQ(tbf.finish(Nanos::ms(10), t, bank), Nanos::ms(10) + t);
  // Back to back from there: one frame per tx time (the line rate holds).
  EXPECT_EQ(tbf.finish(Nanos::ms(10) + t, t, bank), Nanos::ms(10) + 2 * t);
  // Idle for half a frame: half the credit, so the next leaves half a frame time later.
  const Nanos idle_end = Nanos::ms(10) + 2 * t + t / 2;
  EXPECT_EQ(tbf.finish(idle_end, t, bank), idle_end + t / 2);
}

// link.shaper_lateness: a frame short of credit leaves `late` after its credit suffices
// (tbf's watchdog fired late); the credit kept accruing, so the next frame's wait is shorter by as
// much: the lateness does not add up and the line rate holds.
TEST(LinkDirection, LateShaperWakeUpsDoNotAddUp) {
  LinkDirection tbf(100);
  const Nanos t = Nanos::us(123);
  const Nanos bank = 2 * t;
  const Nanos start = Nanos::ms(10);
  EXPECT_FALSE(tbf.waits(start, t, bank));  // after a long idle: credit for two frames
  EXPECT_EQ(tbf.finish(start, t, bank, Nanos::us(40)), start);  // had credit: no wake-up to be late
  EXPECT_EQ(tbf.finish(start, t, bank), start);
  EXPECT_TRUE(tbf.waits(start, t, bank));
  const Nanos late = Nanos::us(30);
  const Nanos third = tbf.finish(start, t, bank, late);
  EXPECT_EQ(third, start + t + late);
  // Back to back: the fourth needs one frame time less the 30 us banked while the watchdog was late.
  EXPECT_EQ(tbf.finish(third, t, bank), start + 2 * t);
  // Late by more than the bucket holds: the credit stops at the burst.
  const Nanos fifth = tbf.finish(start + 2 * t, t, bank, 5 * t);
  EXPECT_EQ(fifth, start + 3 * t + 5 * t);
  EXPECT_FALSE(tbf.waits(fifth, t, bank));  // one frame of credit left (bank - t)
  EXPECT_EQ(tbf.finish(fifth, t, bank), fifth);
  EXPECT_TRUE(tbf.waits(fifth, t, bank));
  // A burst below one frame banks nothing, late or not (the credit never goes negative).
  LinkDirection small(100);
  const Nanos tiny = t / 2;
  const Nanos first = small.finish(start, t, tiny, late);
  EXPECT_EQ(first, start + (t - tiny) + late);
  EXPECT_EQ(small.finish(first, t, tiny, late), first + t + late);
  // A wire has no shaper to be late.
  LinkDirection wire(100);
  EXPECT_FALSE(wire.waits(start, t, Nanos::zero()));
  EXPECT_EQ(wire.finish(start, t, Nanos::zero(), late), start + t);
}

}  // namespace
}  // namespace ackstall::sim
