#include "ackstall/core/tcp_options.h"

#include <gtest/gtest.h>

namespace ackstall::core {
namespace {

TEST(TcpOptions, AbsentByDefault) {
  const TcpOptions o;
  EXPECT_FALSE(o.mss);
  EXPECT_FALSE(o.wscale);
  EXPECT_FALSE(o.sack_ok);
  EXPECT_FALSE(o.timestamps);
  EXPECT_EQ(o.encoded_length(), 0);
}

TEST(TcpOptions, EncodedLengthAsLaidOut) {
  // MSS 4; NOP NOP timestamps 12 (SACK-permitted takes the NOPs' place); NOP NOP SACK-permitted
  // 4 without timestamps; NOP window-scale 4 (src/pcap/tcp_options.cc; docs/STACKS.md §1, §3).
  TcpOptions o;
  o.mss = 1460;
  EXPECT_EQ(o.encoded_length(), 4);
  o.wscale = 0;  // shift 0 is present, not absent
  EXPECT_EQ(o.encoded_length(), 8);
  o.timestamps = TcpTimestamps{1, 0};
  EXPECT_EQ(o.encoded_length(), 20);  // an OpenBSD SYN
  o.sack_ok = true;
  EXPECT_EQ(o.encoded_length(), 20);  // a Linux SYN: SACK_PERM rides in the timestamp's padding
  o.timestamps.reset();
  EXPECT_EQ(o.encoded_length(), 12);
  TcpOptions established;
  established.timestamps = TcpTimestamps{5, 6};
  EXPECT_EQ(established.encoded_length(), 12);  // 1460 - 12 = 1448 payload bytes
  EXPECT_LE(o.encoded_length(), TcpOptions::kMaxEncodedLength);
}

TEST(TcpOptions, ValueEquality) {
  TcpOptions a, b;
  a.timestamps = TcpTimestamps{1, 2};
  EXPECT_NE(a, b);
  b.timestamps = TcpTimestamps{1, 2};
  EXPECT_EQ(a, b);
  static_assert(TcpOptions{}.encoded_length() == 0);
}

}  // namespace
}  // namespace ackstall::core
