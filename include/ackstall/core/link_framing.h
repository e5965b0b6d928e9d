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
inline constexpr std::int32_t kTimestampOptionBytes = 12;  // NOP NOP + 10-byte option (RFC 7323)

struct LinkFraming {
  std::int32_t overhead = 38;   // bytes per frame beyond the IP packet
  std::int32_t min_frame = 64;  // minimum frame (header + payload + FCS), padded
  std::int32_t gap = 20;        // the part of `overhead` outside min_frame

  static constexpr LinkFraming ethernet() noexcept { return {38, 64, 20}; }
  static constexpr LinkFraming ppp() noexcept { return {2, 0, 0}; }
  friend bool operator==(const LinkFraming&, const LinkFraming&) = default;
};

// Byte-times one IP packet of `ip_len` bytes occupies on the link.
constexpr std::int64_t wire_bytes(const LinkFraming& f, std::int64_t ip_len) noexcept {
  return std::max<std::int64_t>(ip_len + f.overhead - f.gap, f.min_frame) + f.gap;
}

// TCP payload of a full IPv4 segment: mtu - 20 - 20 - option bytes.
constexpr std::int64_t full_segment_payload(std::int64_t mtu, std::int64_t tcp_option_bytes) noexcept {
  return mtu - kIpv4HeaderBytes - kTcpHeaderBytes - tcp_option_bytes;
}

// Goodput ceiling in bytes/s of a link of `rate_bps` carrying full segments of `payload` bytes
// (IPv4, `tcp_option_bytes` of options each).
constexpr double goodput_ceiling_bytes_per_s(std::int64_t rate_bps, const LinkFraming& f,
                                             std::int64_t payload,
                                             std::int64_t tcp_option_bytes) noexcept {
  const std::int64_t ip_len = payload + kIpv4HeaderBytes + kTcpHeaderBytes + tcp_option_bytes;
  return static_cast<double>(rate_bps) / 8.0 * static_cast<double>(payload) /
         static_cast<double>(wire_bytes(f, ip_len));
}

}  // namespace ackstall::core
