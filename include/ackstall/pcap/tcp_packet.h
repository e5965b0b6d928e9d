// ackstall/pcap/tcp_packet.h — one TCP/IPv4 segment as a plain value: what the writer encodes and
// the decoder produces.
//
// Units and conventions:
//   * time_ns: nanoseconds since the Unix epoch (pcap's clock); the writer requires
//     0 <= time_ns < 2^32 s.
//   * IPv4 addresses are host-order integers (10.0.0.1 == 0x0a000001); ports host order.
//   * seq / ack are the raw 32-bit wire values; window is the raw 16-bit field (not scaled).
//   * flags is the raw TCP flags byte (tcp_flag::*); URG/ECE/CWR pass through untouched.
//   * payload_len is the TCP payload length in bytes (from the IPv4 total length), regardless of
//     how much of it a capture kept. The writer's payload bytes are payload_byte(seq + i)
//     (payload_pattern.h), so no payload is ever stored.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>

#include "ackstall/core/tcp_flags.h"
#include "ackstall/core/tcp_options.h"

namespace ackstall::pcap {

namespace tcp_flag = core::tcp_flag;  // core/tcp_flags.h

using MacAddr = std::array<std::uint8_t, 6>;

struct Endpoint {
  std::uint32_t addr = 0;  // IPv4, host order
  std::uint16_t port = 0;
  MacAddr mac{};  // Ethernet address (all zero when the link layer has none)
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// The options ackstall cares about: one value type shared with the simulator
// (core/tcp_options.h). Unknown options are skipped by the decoder.
using TcpTimestamps = core::TcpTimestamps;
using TcpOptions = core::TcpOptions;

// The first two blocks of a SACK option (RFC 2018 §3), raw wire sequence numbers: block i is
// [edges[2i], edges[2i+1]). Two are all a D-SACK needs (RFC 2883 §4: the first block, or the
// first within the second); the decoder keeps no more, so the packet stays small.
struct SackBlocks {
  std::uint8_t count = 0;  // blocks kept, 0..2
  std::array<std::uint32_t, 4> edges{};
  friend bool operator==(const SackBlocks&, const SackBlocks&) = default;
};

struct TcpPacket {
  std::int64_t time_ns = 0;
  Endpoint src, dst;
  std::uint32_t seq = 0;
  std::uint32_t ack = 0;
  std::uint8_t flags = 0;
  std::uint16_t window = 0;
  TcpOptions options;
  SackBlocks sack;  // a SACK option's first blocks (encoded after `options`)
  std::uint32_t payload_len = 0;

  bool has(std::uint8_t flag) const noexcept { return (flags & flag) != 0; }
  friend bool operator==(const TcpPacket&, const TcpPacket&) = default;
};

// "10.0.0.1"
std::string format_ipv4(std::uint32_t addr);
// "10.0.0.1:5001"
std::string format_endpoint(const Endpoint& e);
// "SYN,ACK" style, "-" when none of FIN/SYN/RST/PSH/ACK/URG is set.
std::string format_flags(std::uint8_t flags);

}  // namespace ackstall::pcap
