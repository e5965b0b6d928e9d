// ackstall/pcap/frame_encoder.h — a TcpPacket as Ethernet II + IPv4 + TCP header bytes.
//
// encode_headers() produces the 14 + 20 + 20..60 header bytes of the frame with both checksums
// filled in: the IPv4 header checksum over the IPv4 header, the TCP checksum over the pseudo
// header, TCP header and the whole payload (payload_pattern.h bytes, summed without being
// materialised). IPv4: version 4, IHL 5, DSCP 0, DF set, TTL 64, identification `ip_id`.
// The full frame is `frame_len` bytes: headers then payload_len payload bytes (no Ethernet
// padding, no FCS — as a capture on the sending host shows it).
// Errors: payload_len too large for one IPv4 datagram (total length > 65535).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

inline constexpr std::size_t kEthernetHeaderLen = 14;
inline constexpr std::size_t kIpv4HeaderLen = 20;
inline constexpr std::size_t kTcpHeaderLen = 20;
inline constexpr std::size_t kMaxEncodedHeaders = kEthernetHeaderLen + kIpv4HeaderLen + kTcpHeaderLen + 40;

struct EncodedHeaders {
  std::array<std::uint8_t, kMaxEncodedHeaders> bytes{};
  std::size_t size = 0;         // header bytes used
  std::uint32_t frame_len = 0;  // size + payload_len
};

tl::expected<EncodedHeaders, std::string> encode_headers(const TcpPacket& packet,
                                                         std::uint16_t ip_id);

}  // namespace ackstall::pcap
