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

}  // namespace
}  // namespace ackstall::sim
