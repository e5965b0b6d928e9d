#include "ackstall/pcap/tcp_options.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace ackstall::pcap {
namespace {

std::vector<std::uint8_t> encode(const TcpOptions& o) {
  std::array<std::uint8_t, kMaxEncodedOptions> buf{};
  return {buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(encode_tcp_options(o, buf))};
}

TEST(TcpOptions, LinuxSynLayout) {
  // A Linux SYN: MSS, SACK_PERM, TS, NOP, WS (tcp_options_write).
  const auto b = encode({1460, 7, true, TcpTimestamps{0x01020304, 0}});
  const std::vector<std::uint8_t> want = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4,
                                          0, 0, 0, 0,    1, 3, 3, 7};
  EXPECT_EQ(b, want);
}

TEST(TcpOptions, EstablishedTimestampsAndNoTsSyn) {
  EXPECT_EQ(encode({{}, {}, false, TcpTimestamps{5, 6}}),
            (std::vector<std::uint8_t>{1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 6}));
  EXPECT_EQ(encode({1460, 2, true, {}}),
            (std::vector<std::uint8_t>{2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 2}));
  EXPECT_TRUE(encode({}).empty());
}

TEST(TcpOptions, EveryCombinationRoundTripsInWholeWords) {
  for (int mask = 0; mask < 16; ++mask) {
    TcpOptions o;
    if (mask & 1) o.mss = 1448;
    if (mask & 2) o.wscale = 14;
    o.sack_ok = (mask & 4) != 0;
    if (mask & 8) o.timestamps = TcpTimestamps{0xdeadbeef, 0x12345678};
    const auto b = encode(o);
    EXPECT_EQ(b.size() % 4, 0u) << mask;
    EXPECT_EQ(static_cast<std::int32_t>(b.size()), o.encoded_length()) << mask;  // what sim sizes by
    const auto parsed = parse_tcp_options(b);
    EXPECT_FALSE(parsed.malformed) << mask;
    EXPECT_EQ(parsed.options, o) << mask;
  }
}

TEST(TcpOptions, MalformedStopsButKeepsEarlierOptions) {
  auto r = parse_tcp_options(std::vector<std::uint8_t>{2, 4, 0x05, 0xb4, 3, 1});
  EXPECT_TRUE(r.malformed);
  EXPECT_EQ(r.options.mss, 1460);
  EXPECT_TRUE(parse_tcp_options(std::vector<std::uint8_t>{2, 4, 0x05}).malformed);  // runs past end
  EXPECT_TRUE(parse_tcp_options(std::vector<std::uint8_t>{2, 5, 0, 0, 0}).malformed);  // MSS len 5
  EXPECT_TRUE(parse_tcp_options(std::vector<std::uint8_t>{8}).malformed);  // no length byte
  // EOL ends the list; unknown kinds are skipped; a SACK block is kept.
  r = parse_tcp_options(std::vector<std::uint8_t>{5, 10, 0, 0, 0, 1, 0, 0, 0, 2, 3, 3, 9, 0, 2, 4});
  EXPECT_FALSE(r.malformed);
  EXPECT_EQ(r.options.wscale, 9);
  EXPECT_FALSE(r.options.mss);
  EXPECT_EQ(r.sack.count, 1);
  EXPECT_EQ(r.sack.edges[0], 1u);
  EXPECT_EQ(r.sack.edges[1], 2u);
}

TEST(TcpOptions, SackBlocksFirstTwoKeptAndRoundTrip) {
  // RFC 2018 §3: 2 + 8n bytes; of three blocks the first two are kept (all a D-SACK needs).
  std::vector<std::uint8_t> b(20);
  const SackBlocks two{.count = 2, .edges = {100, 200, 50, 300}};
  ASSERT_EQ(encode_sack_blocks(two, b), 20u);
  auto r = parse_tcp_options(b);
  EXPECT_FALSE(r.malformed);
  EXPECT_EQ(r.sack, two);
  const std::vector<std::uint8_t> three = {5, 26, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6};
  r = parse_tcp_options(three);
  EXPECT_FALSE(r.malformed);
  EXPECT_EQ(r.sack, (SackBlocks{.count = 2, .edges = {1, 2, 3, 4}}));
  EXPECT_TRUE(parse_tcp_options(std::vector<std::uint8_t>{5, 6, 0, 0, 0, 1}).malformed);  // half a block
  EXPECT_TRUE(parse_tcp_options(std::vector<std::uint8_t>{5, 2}).malformed);              // no block
}

}  // namespace
}  // namespace ackstall::pcap
