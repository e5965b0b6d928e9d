#include "ackstall/pcap/frame_decoder.h"

#include <algorithm>

#include "ackstall/pcap/tcp_options.h"
#include "bytes.h"

namespace ackstall::pcap {
namespace {

using detail::load_be16;
using detail::load_be32;

constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherIpv6 = 0x86DD;
constexpr std::uint16_t kEtherVlan = 0x8100;
constexpr std::uint16_t kEtherQinQ = 0x88A8;

tl::unexpected<FrameSkip> skip(SkipKind kind, std::string_view reason) noexcept {
  return tl::unexpected(FrameSkip{kind, reason});
}

struct Link {
  std::size_t ip_offset = 0;
  MacAddr src{}, dst{};
};

tl::expected<Link, FrameSkip> check_ethertype(std::uint16_t type, std::size_t offset) noexcept {
  if (type == kEtherIpv4) return Link{offset, {}, {}};
  if (type == kEtherIpv6) return skip(SkipKind::unsupported, "IPv6 (only IPv4 is analysed)");
  return skip(SkipKind::unsupported, "not IPv4 (EtherType/protocol)");
}

tl::expected<Link, FrameSkip> decode_link(LinkType link, std::span<const std::uint8_t> d) noexcept {
  switch (link) {
    case LinkType::ethernet: {
      if (d.size() < 14) return skip(SkipKind::truncated, "Ethernet header not captured");
      std::size_t off = 12;
      std::uint16_t type = load_be16(d.data() + off);
      for (int tags = 0; (type == kEtherVlan || type == kEtherQinQ) && tags < 2; ++tags) {
        off += 4;
        if (d.size() < off + 2) return skip(SkipKind::truncated, "802.1Q tag not captured");
        type = load_be16(d.data() + off);
      }
      auto l = check_ethertype(type, off + 2);
      if (l) {
        std::copy_n(d.begin(), 6, l->dst.begin());
        std::copy_n(d.begin() + 6, 6, l->src.begin());
      }
      return l;
    }
    case LinkType::linux_sll: {
      if (d.size() < 16) return skip(SkipKind::truncated, "Linux SLL header not captured");
      auto l = check_ethertype(load_be16(d.data() + 14), 16);
      if (l && load_be16(d.data() + 4) == 6) std::copy_n(d.begin() + 6, 6, l->src.begin());
      return l;
    }
    case LinkType::linux_sll2: {
      if (d.size() < 20) return skip(SkipKind::truncated, "Linux SLL2 header not captured");
      auto l = check_ethertype(load_be16(d.data()), 20);
      if (l && d[11] == 6) std::copy_n(d.begin() + 12, 6, l->src.begin());
      return l;
    }
    case LinkType::null_loopback: {
      if (d.size() < 4) return skip(SkipKind::truncated, "loopback header not captured");
      // The address family is in the capturing host's byte order: AF_INET is 2 everywhere.
      if (detail::load_le32(d.data()) != 2 && load_be32(d.data()) != 2) {
        return skip(SkipKind::unsupported, "not IPv4 (loopback address family)");
      }
      return Link{4, {}, {}};
    }
    case LinkType::raw_ip:
      if (d.empty()) return skip(SkipKind::truncated, "IPv4 header not captured");
      if ((d[0] >> 4) == 6) return skip(SkipKind::unsupported, "IPv6 (only IPv4 is analysed)");
      return Link{0, {}, {}};
  }
  return skip(SkipKind::unsupported, "unknown link type");
}

}  // namespace

std::string_view to_string(SkipKind kind) noexcept {
  switch (kind) {
    case SkipKind::unsupported: return "unsupported";
    case SkipKind::truncated: return "truncated";
    case SkipKind::malformed: return "malformed";
  }
  return "?";
}

tl::expected<DecodedFrame, FrameSkip> decode_frame(LinkType link, std::span<const std::uint8_t> data,
                                                   std::uint32_t orig_len, std::int64_t time_ns) noexcept {
  auto l = decode_link(link, data);
  if (!l) return tl::unexpected(l.error());
  const std::size_t ip_off = l->ip_offset;
  const std::span<const std::uint8_t> ip = data.subspan(std::min(ip_off, data.size()));
  if (ip.size() < 20) return skip(SkipKind::truncated, "IPv4 header not captured");
  if ((ip[0] >> 4) != 4) return skip(SkipKind::malformed, "IPv4 version field is not 4");
  const std::size_t ihl = std::size_t{ip[0] & 0x0fu} * 4;
  if (ihl < 20) return skip(SkipKind::malformed, "IPv4 header length (IHL) < 5");
  if (ip.size() < ihl) return skip(SkipKind::truncated, "IPv4 options not captured");
  if (ip[9] != 6) return skip(SkipKind::unsupported, "not TCP (IPv4 protocol)");
  const std::uint16_t frag = load_be16(ip.data() + 6);
  if ((frag & 0x3fff) != 0) return skip(SkipKind::unsupported, "IPv4 fragment");

  // The datagram length: the total length field, or the frame's when it is 0 (TSO captures).
  // The frame may be longer (Ethernet padding, FCS) but not shorter.
  const std::uint64_t frame_ip_len = orig_len > ip_off ? orig_len - ip_off : 0;
  std::uint64_t ip_len = load_be16(ip.data() + 2);
  if (ip_len == 0) ip_len = frame_ip_len;
  if (ip_len < ihl) return skip(SkipKind::malformed, "IPv4 total length < header length");
  if (ip_len > std::max<std::uint64_t>(frame_ip_len, ip.size())) {
    return skip(SkipKind::malformed, "IPv4 total length exceeds the frame length");
  }

  const std::span<const std::uint8_t> tcp = ip.subspan(ihl);
  if (tcp.size() < 20) return skip(SkipKind::truncated, "TCP header not captured");
  const std::size_t doff = std::size_t{tcp[12]} / 16 * 4;
  if (doff < 20) return skip(SkipKind::malformed, "TCP data offset < 5");
  if (ihl + doff > ip_len) return skip(SkipKind::malformed, "TCP data offset beyond the IPv4 datagram");

  DecodedFrame f;
  TcpPacket& p = f.packet;
  p.time_ns = time_ns;
  p.src = {load_be32(ip.data() + 12), load_be16(tcp.data()), l->src};
  p.dst = {load_be32(ip.data() + 16), load_be16(tcp.data() + 2), l->dst};
  p.seq = load_be32(tcp.data() + 4);
  p.ack = load_be32(tcp.data() + 8);
  p.flags = tcp[13];
  p.window = load_be16(tcp.data() + 14);
  p.payload_len = static_cast<std::uint32_t>(ip_len - ihl - doff);

  const std::size_t opt_captured = std::min(doff, tcp.size()) - 20;
  f.options_truncated = opt_captured < doff - 20;
  const ParsedTcpOptions opts = parse_tcp_options(tcp.subspan(20, opt_captured));
  p.options = opts.options;
  f.options_malformed = opts.malformed && !f.options_truncated;
  f.captured_payload = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(tcp.size() > doff ? tcp.size() - doff : 0, p.payload_len));
  return f;
}

}  // namespace ackstall::pcap
