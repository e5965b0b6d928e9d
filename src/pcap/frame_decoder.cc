#include "ackstall/pcap/frame_decoder.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "ackstall/pcap/tcp_options.h"
#include "bytes.h"

namespace ackstall::pcap {
namespace {

using detail::load_be16;
using detail::load_be32;

// EtherTypes: IEEE 802 numbers (https://standards-oui.ieee.org/ethertype/eth.txt).
constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherArp = 0x0806;
constexpr std::uint16_t kEtherIpv6 = 0x86DD;
constexpr std::uint16_t kEtherVlan = 0x8100;  // IEEE 802.1Q
constexpr std::uint16_t kEtherQinQ = 0x88A8;  // IEEE 802.1ad

tl::unexpected<FrameSkip> skip(SkipKind kind, std::string_view reason) noexcept {
  return tl::unexpected(FrameSkip{kind, reason});
}

// The link layer's header: the IP header's offset in the frame, or why the frame is skipped. The
// Ethernet addresses go straight into the packet (they stay zero when the link has none).
tl::expected<std::size_t, FrameSkip> check_ethertype(std::uint16_t type, std::size_t offset) noexcept {
  if (type == kEtherIpv4 || type == kEtherIpv6) return offset;
  if (type == kEtherArp) return skip(SkipKind::unsupported, "ARP");
  if (type == 0x88CC) return skip(SkipKind::unsupported, "LLDP");
  if (type < 0x0600) return skip(SkipKind::unsupported, "802.3/LLC (no EtherType)");
  return skip(SkipKind::unsupported, "not IP (EtherType)");
}

tl::expected<std::size_t, FrameSkip> decode_link(LinkType link, std::span<const std::uint8_t> d, TcpPacket& p) noexcept {
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
        std::memcpy(p.dst.mac.data(), d.data(), 6);
        std::memcpy(p.src.mac.data(), d.data() + 6, 6);
      }
      return l;
    }
    case LinkType::linux_sll: {
      if (d.size() < 16) return skip(SkipKind::truncated, "Linux SLL header not captured");
      auto l = check_ethertype(load_be16(d.data() + 14), 16);
      if (l && load_be16(d.data() + 4) == 6) std::memcpy(p.src.mac.data(), d.data() + 6, 6);
      return l;
    }
    case LinkType::linux_sll2: {
      if (d.size() < 20) return skip(SkipKind::truncated, "Linux SLL2 header not captured");
      auto l = check_ethertype(load_be16(d.data()), 20);
      if (l && d[11] == 6) std::memcpy(p.src.mac.data(), d.data() + 12, 6);
      return l;
    }
    case LinkType::null_loopback: {
      if (d.size() < 4) return skip(SkipKind::truncated, "loopback header not captured");
      // The address family is in the capturing host's byte order. AF_INET is 2 everywhere;
      // AF_INET6 is 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30 (macOS), 10 (Linux)
      // (https://www.tcpdump.org/linktypes/LINKTYPE_NULL.html).
      const std::uint32_t le = detail::load_le32(d.data()), be = load_be32(d.data());
      const std::uint32_t af = le < 256 ? le : be;
      if (af == 2 || af == 24 || af == 28 || af == 30 || af == 10) return std::size_t{4};
      return skip(SkipKind::unsupported, "not IP (loopback address family)");
    }
    case LinkType::raw_ip:
      if (d.empty()) return skip(SkipKind::truncated, "IP header not captured");
      return std::size_t{0};
  }
  return skip(SkipKind::unsupported, "unknown link type");
}

std::string_view not_tcp(bool v6, std::uint8_t proto) noexcept {
  // IANA protocol numbers.
  switch (proto) {
    case 17: return v6 ? "IPv6/UDP" : "IPv4/UDP";
    case 1: return "IPv4/ICMP";
    case 58: return "IPv6/ICMPv6";
    case 2: return "IPv4/IGMP";
    case 132: return v6 ? "IPv6/SCTP" : "IPv4/SCTP";
    case 50: return v6 ? "IPv6/ESP" : "IPv4/ESP";
    case 59: return "IPv6/no next header";
    default: return v6 ? "IPv6/other protocol" : "IPv4/other protocol";
  }
}

struct IpLayer {
  std::size_t header_len = 0;  // IP header incl. IPv6 extension headers
  std::uint64_t ip_len = 0;    // header_len + TCP segment
};

// The decoders write the addresses into the frame (f.src, f.dst; the packet's own for IPv4) as
// they go, rather than carrying two SocketAddrs out through tl::expected to be copied again (the
// cost: docs/BENCHMARKS.md "scan vs tshark").
tl::expected<IpLayer, FrameSkip> decode_ipv4(std::span<const std::uint8_t> ip, std::uint64_t frame_ip_len,
                                             DecodedFrame& f) noexcept {
  if (ip.size() < 20) return skip(SkipKind::truncated, "IPv4 header not captured");
  const std::size_t ihl = std::size_t{ip[0] & 0x0fu} * 4;
  if (ihl < 20) return skip(SkipKind::malformed, "IPv4 header length (IHL) < 5");
  if (ip.size() < ihl) return skip(SkipKind::truncated, "IPv4 options not captured");
  if (ip[9] != 6) return skip(SkipKind::unsupported, not_tcp(false, ip[9]));
  const std::uint16_t frag = load_be16(ip.data() + 6);
  if ((frag & 0x3fff) != 0) return skip(SkipKind::unsupported, "IPv4 fragment");
  // The datagram length: the total length field, or the frame's when it is 0 (TSO captures).
  // The frame may be longer (Ethernet padding, FCS) but not shorter.
  std::uint64_t ip_len = load_be16(ip.data() + 2);
  if (ip_len == 0) ip_len = frame_ip_len;
  if (ip_len < ihl) return skip(SkipKind::malformed, "IPv4 total length < header length");
  if (ip_len > std::max<std::uint64_t>(frame_ip_len, ip.size())) {
    return skip(SkipKind::malformed, "IPv4 total length exceeds the frame length");
  }
  // IpAddr holds an IPv4 address as its 4 bytes in network order, the rest zero (flow_key.h).
  f.src.addr.v6 = f.dst.addr.v6 = false;
  f.src.addr.bytes = {};
  f.dst.addr.bytes = {};
  std::memcpy(f.src.addr.bytes.data(), ip.data() + 12, 4);
  std::memcpy(f.dst.addr.bytes.data(), ip.data() + 16, 4);
  f.packet.src.addr = load_be32(ip.data() + 12);
  f.packet.dst.addr = load_be32(ip.data() + 16);
  return IpLayer{ihl, ip_len};
}

// RFC 8200 §4: the extension headers are walked to the upper layer. Hop-by-Hop (0), Routing (43),
// Destination Options (60) and Mobility (135) carry their length in 8-octet units not counting
// the first 8; Fragment (44) is 8 octets; AH (51, RFC 4302 §2.2) in 4-octet units minus 2.
tl::expected<IpLayer, FrameSkip> decode_ipv6(std::span<const std::uint8_t> ip, std::uint64_t frame_ip_len,
                                             DecodedFrame& f) noexcept {
  if (ip.size() < 40) return skip(SkipKind::truncated, "IPv6 header not captured");
  std::uint64_t ip_len = std::uint64_t{load_be16(ip.data() + 4)} + 40;
  if (ip_len == 40 && frame_ip_len > 40) ip_len = frame_ip_len;  // jumbogram / TSO: length 0
  if (ip_len > std::max<std::uint64_t>(frame_ip_len, ip.size())) {
    return skip(SkipKind::malformed, "IPv6 payload length exceeds the frame length");
  }
  std::uint8_t next = ip[6];
  std::size_t off = 40;
  for (int n = 0; n < 16; ++n) {
    if (next == 6) {
      if (off > ip_len) return skip(SkipKind::malformed, "IPv6 extension headers exceed the payload length");
      f.src.addr = IpAddr::ipv6(ip.data() + 8);
      f.dst.addr = IpAddr::ipv6(ip.data() + 24);
      f.packet.src.addr = f.packet.dst.addr = 0;  // the packet's addresses are IPv4's
      return IpLayer{off, ip_len};
    }
    std::size_t len = 0;
    switch (next) {
      case 0: case 43: case 60: case 135:
        if (ip.size() < off + 2) return skip(SkipKind::truncated, "IPv6 extension header not captured");
        len = (std::size_t{ip[off + 1]} + 1) * 8;
        break;
      case 44: {
        if (ip.size() < off + 8) return skip(SkipKind::truncated, "IPv6 fragment header not captured");
        const std::uint16_t fo = load_be16(ip.data() + off + 2);
        if ((fo & 0xfff9) != 0) return skip(SkipKind::unsupported, "IPv6 fragment");  // offset or M
        len = 8;
        break;
      }
      case 51:
        if (ip.size() < off + 2) return skip(SkipKind::truncated, "IPv6 extension header not captured");
        len = (std::size_t{ip[off + 1]} + 2) * 4;
        break;
      default:
        return skip(SkipKind::unsupported, not_tcp(true, next));
    }
    if (ip.size() < off + len) return skip(SkipKind::truncated, "IPv6 extension header not captured");
    next = ip[off];
    off += len;
  }
  return skip(SkipKind::malformed, "IPv6: more than 16 extension headers");
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

namespace {

// decode_frame's work, filling `f` in place (returning the frame by value through tl::expected
// copied its ~150 bytes once more per record: callgrind, 62 of 247 instructions a record).
std::optional<FrameSkip> decode_into(DecodedFrame& f, LinkType link, std::span<const std::uint8_t> data,
                                     std::uint32_t orig_len, std::int64_t time_ns) noexcept {
  const auto fail = [](SkipKind kind, std::string_view reason) { return FrameSkip{kind, reason}; };
  TcpPacket& p = f.packet;
  const auto l = decode_link(link, data, p);
  if (!l) return l.error();
  const std::size_t ip_off = *l;
  const std::span<const std::uint8_t> ip = data.subspan(std::min(ip_off, data.size()));
  if (ip.empty()) return fail(SkipKind::truncated, "IP header not captured");
  const std::uint64_t frame_ip_len = orig_len > ip_off ? orig_len - ip_off : 0;
  const unsigned version = ip[0] >> 4;
  tl::expected<IpLayer, FrameSkip> layer = version == 4   ? decode_ipv4(ip, frame_ip_len, f)
                                           : version == 6 ? decode_ipv6(ip, frame_ip_len, f)
                                                          : skip(SkipKind::malformed, "IP version is not 4 or 6");
  if (!layer) return layer.error();
  const std::size_t ihl = layer->header_len;
  const std::uint64_t ip_len = layer->ip_len;

  const std::span<const std::uint8_t> tcp = ip.subspan(ihl);
  if (tcp.size() < 20) return fail(SkipKind::truncated, "TCP header not captured");
  const std::size_t doff = std::size_t{tcp[12]} / 16 * 4;
  if (doff < 20) return fail(SkipKind::malformed, "TCP data offset < 5");
  if (ihl + doff > ip_len) return fail(SkipKind::malformed, "TCP data offset beyond the IP datagram");

  p.time_ns = time_ns;
  const bool v6 = version == 6;
  p.src.port = f.src.port = load_be16(tcp.data());
  p.dst.port = f.dst.port = load_be16(tcp.data() + 2);
  p.seq = load_be32(tcp.data() + 4);
  p.ack = load_be32(tcp.data() + 8);
  p.flags = tcp[13];
  p.window = load_be16(tcp.data() + 14);
  p.payload_len = static_cast<std::uint32_t>(ip_len - ihl - doff);
  f.ttl = ip[v6 ? 7 : 8];  // RFC 791 §3.1 TTL at byte 8; RFC 8200 §3 hop limit at 7 (both headers were captured)
  f.ip_id = v6 ? 0 : load_be16(ip.data() + 4);  // RFC 791 §3.1 Identification at byte 4

  const std::size_t opt_captured = std::min(doff, tcp.size()) - 20;
  f.options_truncated = opt_captured < doff - 20;
  const ParsedTcpOptions opts = parse_tcp_options(tcp.subspan(20, opt_captured));
  p.options = opts.options;
  p.sack = opts.sack;
  f.options_malformed = opts.malformed && !f.options_truncated;
  f.captured_payload = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(tcp.size() > doff ? tcp.size() - doff : 0, p.payload_len));
  return std::nullopt;
}

}  // namespace

tl::expected<DecodedFrame, FrameSkip> decode_frame(LinkType link, std::span<const std::uint8_t> data,
                                                   std::uint32_t orig_len, std::int64_t time_ns) noexcept {
  tl::expected<DecodedFrame, FrameSkip> out;  // the one returned object: built in place (NRVO)
  if (auto skipped = decode_into(*out, link, data, orig_len, time_ns)) out = tl::unexpected(*skipped);
  return out;
}

}  // namespace ackstall::pcap
