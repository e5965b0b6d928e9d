// core/link_framing.h: wire bytes per frame and the goodput ceiling (docs/STACKS.md §5).
#include "ackstall/core/link_framing.h"

#include <gtest/gtest.h>

namespace ackstall::core {
namespace {

TEST(LinkFraming, EthernetChargesPreambleHeaderFcsAndGapWithA64ByteMinimum) {
  constexpr LinkFraming eth = LinkFraming::ethernet();
  static_assert(wire_bytes(eth, 1500) == 1538);
  EXPECT_EQ(wire_bytes(eth, 40), 84);  // a bare ACK: padded to 64 + 20
  EXPECT_EQ(wire_bytes(eth, 46), 84);  // 46 + 18 = 64: exactly the minimum frame
  EXPECT_EQ(wire_bytes(eth, 52), 90);  // an ACK with timestamps: 70-byte frame
  EXPECT_EQ(wire_bytes(eth, 47), 85);  // 47 + 18 = 65 > 64
  EXPECT_EQ(wire_bytes(LinkFraming::ppp(), 1500), 1502);
}

TEST(LinkFraming, TheSeedsCeilingIs11Point32MiBPerSecond) {
  EXPECT_EQ(full_segment_payload(1500, 0), 1460);
  EXPECT_EQ(full_segment_payload(1500, kTimestampOptionBytes), 1448);
  const double plain = goodput_ceiling_bytes_per_s(100'000'000, LinkFraming::ethernet(), 1460, 0);
  EXPECT_DOUBLE_EQ(plain, 100e6 / 8 * 1460 / 1538);
  EXPECT_NEAR(plain / 1048576.0, 11.32, 0.005);
  const double ts = goodput_ceiling_bytes_per_s(100'000'000, LinkFraming::ethernet(), 1448,
                                                kTimestampOptionBytes);
  EXPECT_NEAR(ts / 1048576.0, 11.22, 0.005);
}

}  // namespace
}  // namespace ackstall::core
