// ackstall/core/link_framing.h — what a link charges per frame, and the TCP goodput ceiling it
// leaves: one formula for the simulator's link model, its reports and the lab's shaped link.
//
// Bytes on the wire per IP packet (docs/STACKS.md §5):
//     wire = max(ip_len + overhead - gap, min_frame) + gap
// Ethernet: overhead 38 = 8 preamble/SFD + 14 header + 4 FCS + 12 inter-frame gap, of which
// gap = 20 (preamble/SFD and IFG) lies outside the 64-byte minimum frame; a 1500-byte packet
// costs 1538 byte-times. PPP as ns-3 models it: overhead 2, no minimum, no gap.
//
// A full TCP/IPv4 segment under MTU carries mtu - 40 - option bytes of payload (1460; 1448 with
// timestamps, RFC 7323: 12 option bytes), so the ceiling is rate/8 * payload / wire(mtu):
// 100BASE-T 11.32 MiB/s, 11.22 with timestamps (§5).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ackstall::core {

inline constexpr std::int32_t kIpv4HeaderBytes = 20;
inline constexpr std::int32_t kIpv6HeaderBytes = 40;
inline constexpr std::int32_t kTcpHeaderBytes = 20;
inline constexpr std::int32_t kTimestampOptionBytes = 12;  // NOP NOP + 10-byte option (RFC 7323 3.2)

enum class IpVersion { v4, v6 };

// The fixed IP and TCP headers of a segment without options: 40 (IPv4), 60 (IPv6).
constexpr std::int32_t tcp_ip_header_bytes(IpVersion v = IpVersion::v4) noexcept {
  return (v == IpVersion::v4 ? kIpv4HeaderBytes : kIpv6HeaderBytes) + kTcpHeaderBytes;
}

// The MSS a host announces for an MTU: the MTU less the fixed headers (RFC 9293 3.7.1;
// 1500 -> 1460 over IPv4, 1440 over IPv6; the seed's "MTU - 40").
constexpr std::int64_t mss_for_mtu(std::int64_t mtu, IpVersion v = IpVersion::v4) noexcept {
  return mtu - tcp_ip_header_bytes(v);
}

// The TCP option bytes every data segment carries: the timestamp option when negotiated.
constexpr std::int32_t per_segment_option_bytes(bool timestamps) noexcept {
  return timestamps ? kTimestampOptionBytes : 0;
}

// The payload of a full segment for an announced MSS: the MSS less the options every segment
// carries (RFC 9293 3.7.1, RFC 7323 3.2: 1460 -> 1448 with timestamps).
constexpr std::int64_t segment_payload(std::int64_t mss, bool timestamps) noexcept {
  return mss - per_segment_option_bytes(timestamps);
}

// Ethernet's bytes per frame beyond the IP packet (IEEE 802.3): on the wire, not in a capture.
inline constexpr std::int32_t kEthernetPreambleSfdBytes = 8;
inline constexpr std::int32_t kEthernetHeaderBytes = 14;  // destination, source, EtherType
inline constexpr std::int32_t kEthernetFcsBytes = 4;
inline constexpr std::int32_t kEthernetInterFrameGapBytes = 12;
inline constexpr std::int32_t kEthernetOverheadBytes =
    kEthernetPreambleSfdBytes + kEthernetHeaderBytes + kEthernetFcsBytes + kEthernetInterFrameGapBytes;  // 38
inline constexpr std::int32_t kEthernetMinFrameBytes = 64;  // header + payload + FCS, padded

struct LinkFraming {
  std::int32_t overhead = kEthernetOverheadBytes;  // bytes per frame beyond the IP packet
  std::int32_t min_frame = kEthernetMinFrameBytes; // minimum frame (header + payload + FCS), padded
  std::int32_t gap = kEthernetPreambleSfdBytes + kEthernetInterFrameGapBytes;  // the part of `overhead` outside min_frame

  static constexpr LinkFraming ethernet() noexcept {
    return {kEthernetOverheadBytes, kEthernetMinFrameBytes, kEthernetPreambleSfdBytes + kEthernetInterFrameGapBytes};
  }
  static constexpr LinkFraming ppp() noexcept { return {2, 0, 0}; }
  friend bool operator==(const LinkFraming&, const LinkFraming&) = default;
};

// Byte-times one IP packet of `ip_len` bytes occupies on the link.
constexpr std::int64_t wire_bytes(const LinkFraming& f, std::int64_t ip_len) noexcept {
  return std::max<std::int64_t>(ip_len + f.overhead - f.gap, f.min_frame) + f.gap;
}

// TCP payload of a full IPv4 segment: mtu - 20 - 20 - option bytes.
constexpr std::int64_t full_segment_payload(std::int64_t mtu, std::int64_t tcp_option_bytes) noexcept {
  return mss_for_mtu(mtu) - tcp_option_bytes;
}

// Byte-times on an Ethernet wire of an IPv4 TCP segment carrying PAYLOAD bytes (with the
// timestamp option when negotiated): payload + 40 + 12 + 38 for a timestamped full segment.
constexpr std::int64_t ethernet_wire_bytes(std::int64_t payload, bool timestamps) noexcept {
  return wire_bytes(LinkFraming::ethernet(), payload + tcp_ip_header_bytes() + per_segment_option_bytes(timestamps));
}

// Goodput ceiling in bytes/s of a link of `rate_bps` carrying full segments of `payload` bytes
// (IPv4, `tcp_option_bytes` of options each).
constexpr double goodput_ceiling_bytes_per_s(std::int64_t rate_bps, const LinkFraming& f,
                                             std::int64_t payload,
                                             std::int64_t tcp_option_bytes) noexcept {
  const std::int64_t ip_len = payload + tcp_ip_header_bytes() + tcp_option_bytes;
  return static_cast<double>(rate_bps) / 8.0 * static_cast<double>(payload) /
         static_cast<double>(wire_bytes(f, ip_len));
}

}  // namespace ackstall::core
