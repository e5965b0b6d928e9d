#include "ackstall/pcap/frame_decoder.h"

#include <gtest/gtest.h>

#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/frame_encoder.h"
#include "ackstall/pcap/payload_pattern.h"

namespace ackstall::pcap {
namespace {

// A full Ethernet frame for p (headers + pattern payload).
std::vector<std::uint8_t> ethernet_frame(const TcpPacket& p) {
  auto h = encode_headers(p, 1);
  EXPECT_TRUE(h);
  std::vector<std::uint8_t> f(h->bytes.begin(), h->bytes.begin() + static_cast<std::ptrdiff_t>(h->size));
  f.resize(h->frame_len);
  fill_payload(p.seq, std::span(f).subspan(h->size));
  return f;
}

TcpPacket sample() {
  Conversation c;
  return c.syn(42);
}

TEST(FrameDecoder, Ethernet) {
  const TcpPacket p = sample();
  const auto f = ethernet_frame(p);
  auto d = decode_frame(LinkType::ethernet, f, static_cast<std::uint32_t>(f.size()), 42);
  ASSERT_TRUE(d) << d.error().reason;
  EXPECT_EQ(d->packet, p);
  EXPECT_FALSE(d->options_truncated);
}

TEST(FrameDecoder, OtherLinkTypesAndVlan) {
  TcpPacket p = sample();
  const auto eth = ethernet_frame(p);
  const std::vector<std::uint8_t> ip(eth.begin() + 14, eth.end());
  TcpPacket no_mac = p;
  no_mac.src.mac = {};
  no_mac.dst.mac = {};
  const auto check = [&](LinkType link, std::vector<std::uint8_t> frame, const TcpPacket& want) {
    auto d = decode_frame(link, frame, static_cast<std::uint32_t>(frame.size()), 42);
    ASSERT_TRUE(d) << to_string(link) << ": " << d.error().reason;
    EXPECT_EQ(d->packet, want) << to_string(link);
  };
  check(LinkType::raw_ip, ip, no_mac);
  std::vector<std::uint8_t> null = {2, 0, 0, 0};
  null.insert(null.end(), ip.begin(), ip.end());
  check(LinkType::null_loopback, null, no_mac);
  std::vector<std::uint8_t> sll = {0, 0, 0, 1, 0, 6};
  sll.insert(sll.end(), p.src.mac.begin(), p.src.mac.end());
  sll.insert(sll.end(), {0, 0, 0x08, 0x00});
  sll.insert(sll.end(), ip.begin(), ip.end());
  TcpPacket src_mac = no_mac;
  src_mac.src.mac = p.src.mac;
  check(LinkType::linux_sll, sll, src_mac);
  std::vector<std::uint8_t> sll2 = {0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6};
  sll2.insert(sll2.end(), p.src.mac.begin(), p.src.mac.end());
  sll2.insert(sll2.end(), {0, 0});
  sll2.insert(sll2.end(), ip.begin(), ip.end());
  check(LinkType::linux_sll2, sll2, src_mac);
  std::vector<std::uint8_t> vlan(eth.begin(), eth.begin() + 12);
  vlan.insert(vlan.end(), {0x81, 0x00, 0x00, 0x05});
  vlan.insert(vlan.end(), eth.begin() + 12, eth.end());
  check(LinkType::ethernet, vlan, p);
}

TEST(FrameDecoder, SkipsWhatIsNotIpv4Tcp) {
  auto f = ethernet_frame(sample());
  auto g = f;
  g[12] = 0x86;
  g[13] = 0xdd;
  g[14] = 0x60;      // IPv6 version
  g[14 + 4] = 0;     // payload length 0 (taken from the frame)
  g[14 + 5] = 0;
  g[14 + 6] = 17;    // next header UDP
  EXPECT_EQ(decode_frame(LinkType::ethernet, g, 200, 0).error().reason, "IPv6/UDP");
  g = f;
  g[14 + 9] = 17;
  EXPECT_EQ(decode_frame(LinkType::ethernet, g, 200, 0).error().reason, "IPv4/UDP");
  g = f;
  g[14 + 7] = 8;  // fragment offset 8
  EXPECT_EQ(decode_frame(LinkType::ethernet, g, 200, 0).error().kind, SkipKind::unsupported);
  g = f;
  g[14] = 0x44;
  EXPECT_EQ(decode_frame(LinkType::ethernet, g, 200, 0).error().reason, "IPv4 header length (IHL) < 5");
  g = f;
  g[14 + 20 + 12] = 0x40;
  EXPECT_EQ(decode_frame(LinkType::ethernet, g, 200, 0).error().reason, "TCP data offset < 5");
  g = f;
  g[14 + 2] = 0x10;  // total length 4096+: beyond the frame
  EXPECT_EQ(decode_frame(LinkType::ethernet, g, static_cast<std::uint32_t>(g.size()), 0).error().kind,
            SkipKind::malformed);
}

TEST(FrameDecoder, TsoTotalLengthZeroUsesFrameLength) {
  Conversation c;
  const TcpPacket p = c.data(1, 1000);
  auto f = ethernet_frame(p);
  f[16] = 0;
  f[17] = 0;
  auto d = decode_frame(LinkType::ethernet, std::span(f).first(80), static_cast<std::uint32_t>(f.size()), 1);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->packet.payload_len, 1000u);
  EXPECT_EQ(d->captured_payload, 80u - 66);
}

TEST(FrameDecoder, EveryPrefixIsHandled) {
  const auto f = ethernet_frame(sample());  // 14 + 20 + 40: SYN options
  for (std::size_t n = 0; n <= f.size(); ++n) {
    auto d = decode_frame(LinkType::ethernet, std::span(f).first(n), static_cast<std::uint32_t>(f.size()), 0);
    if (n < 14 + 20 + 20) {
      ASSERT_FALSE(d) << n;
      EXPECT_EQ(d.error().kind, SkipKind::truncated) << n;
    } else {
      ASSERT_TRUE(d) << n;
      EXPECT_EQ(d->options_truncated, n < f.size()) << n;
      EXPECT_FALSE(d->options_malformed) << n;
    }
  }
}

}  // namespace
}  // namespace ackstall::pcap
