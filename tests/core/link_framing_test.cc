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

TEST(LinkFraming, MssFromMtuAndOptions) {
  static_assert(tcp_ip_header_bytes() == 40 && tcp_ip_header_bytes(IpVersion::v6) == 60);
  EXPECT_EQ(mss_for_mtu(1500), 1460);
  EXPECT_EQ(mss_for_mtu(1500, IpVersion::v6), 1440);
  EXPECT_EQ(mss_for_mtu(9000), 8960);
  EXPECT_EQ(mss_for_mtu(65535), 65495);  // loopback
  EXPECT_EQ(segment_payload(1460, true), 1448);  // RFC 7323: 12 option bytes with padding
  EXPECT_EQ(segment_payload(1460, false), 1460);
  EXPECT_EQ(segment_payload(mss_for_mtu(9000), true), 8948);
  EXPECT_EQ(per_segment_option_bytes(true), kTimestampOptionBytes);
}

TEST(LinkFraming, EthernetOverheadIsPreambleHeaderFcsAndGap) {
  static_assert(kEthernetOverheadBytes == 8 + 14 + 4 + 12);
  static_assert(LinkFraming::ethernet() == LinkFraming{});
  EXPECT_EQ(LinkFraming::ethernet().overhead, 38);
  EXPECT_EQ(LinkFraming::ethernet().gap, 20);
  EXPECT_EQ(ethernet_wire_bytes(1448, true), 1448 + 40 + 12 + 38);
  EXPECT_EQ(ethernet_wire_bytes(1460, false), 1538);
  EXPECT_EQ(ethernet_wire_bytes(0, false), 84);  // a bare ACK: the 64-byte minimum frame
}

}  // namespace
}  // namespace ackstall::core
