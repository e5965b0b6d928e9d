// The -s / --verify pattern and the ACK mode names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "ackstall/ttcp/config.h"
#include "ackstall/ttcp/pattern.h"

namespace ackstall::ttcp {
namespace {

TEST(TtcpPattern, IsPositionDependent) {
  std::vector<std::byte> a(64), b(61);
  fill_pattern(a, 0);
  fill_pattern(b, 3);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin() + 3));
  EXPECT_NE(a[0], a[8]);
}

TEST(TtcpPattern, SlicesComposeToTheWholeStream) {
  std::vector<std::byte> whole(1000), parts(1000);
  fill_pattern(whole, 12345);
  for (std::size_t off = 0; off < parts.size(); off += 7) {
    const std::size_t n = std::min<std::size_t>(7, parts.size() - off);
    fill_pattern(std::span(parts).subspan(off, n), 12345 + off);
  }
  EXPECT_EQ(whole, parts);
}

TEST(TtcpAckMode, NamesRoundTrip) {
  for (const AckMode m : kAckModes) EXPECT_EQ(parse_ack_mode(to_string(m)), m);
  EXPECT_EQ(to_string(AckMode::normal), "default");
  EXPECT_FALSE(parse_ack_mode("sometimes"));
}

}  // namespace
}  // namespace ackstall::ttcp
