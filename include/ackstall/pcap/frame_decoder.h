// ackstall/pcap/frame_decoder.h — captured frame bytes to a TcpPacket.
//
// decode_frame() reads only `data` (the captured bytes; may be cut short by the snaplen) and
// never throws or allocates. orig_len is the frame's length on the wire. Outcomes:
//   * a DecodedFrame: an IPv4 or IPv6 TCP segment whose IP header (IPv6: with its extension
//     headers, RFC 8200 §4) and fixed 20-byte TCP header were captured. payload_len comes from the
//     IPv4 total length / IPv6 payload length (or, when that is 0 as in TSO captures and IPv6
//     jumbograms, from orig_len). The flow's addresses are in `src` / `dst` (packet.src.addr and
//     packet.dst.addr are 0 for IPv6). Options cut by the snaplen are parsed as far as captured
//     (options_truncated). MACs are filled for Ethernet (source only for SLL/SLL2).
//   * a FrameSkip saying why not: unsupported (not IP, not TCP — the reason names what it is,
//     e.g. "IPv6/UDP", "ARP" — a fragment, ESP), truncated (headers
//     not all captured), malformed (IHL < 5, TCP data offset < 5 or past the datagram, IPv4 total
//     length longer than the frame). `reason` is a static one-line string.
//   Malformed options do not skip the segment: options_malformed is set and the options parsed
//   before the bad one are kept.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/flow_key.h"
#include "ackstall/pcap/link_type.h"
#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

struct DecodedFrame {
  TcpPacket packet;
  SocketAddr src, dst;  // IPv4 or IPv6 with the ports
  std::uint32_t captured_payload = 0;  // payload bytes present in `data`
  bool options_truncated = false;
  bool options_malformed = false;
  std::uint8_t ttl = 0;  // IPv4 TTL or IPv6 hop limit as captured (RFC 791 / RFC 8200)
  std::uint16_t ip_id = 0;  // IPv4 Identification (RFC 791 §3.1); 0 for IPv6
};

enum class SkipKind : std::uint8_t { unsupported, truncated, malformed };

struct FrameSkip {
  SkipKind kind = SkipKind::unsupported;
  std::string_view reason;  // static storage
};

tl::expected<DecodedFrame, FrameSkip> decode_frame(LinkType link, std::span<const std::uint8_t> data,
                                                   std::uint32_t orig_len, std::int64_t time_ns) noexcept;

std::string_view to_string(SkipKind kind) noexcept;

}  // namespace ackstall::pcap
