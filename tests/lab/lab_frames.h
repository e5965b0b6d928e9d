// Crafted lab frames for the lab's unit tests: PACKET_VNET_HDR's 10-byte header, Ethernet,
// IPv4 or IPv6, TCP with a 12-byte option area, and a zero payload, as the delay line reads them
// between 10.77.0.1 (a, the sender, port sport_a) and 10.77.0.2 (b, port 5001).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ackstall/lab/ack_thinner.h"

namespace ackstall::lab {

struct Seg {
  bool from_receiver = true;  // b -> a; else a -> b
  std::uint32_t seq = 0, ack = 0;
  std::uint8_t flags = kTcpAck;
  std::uint16_t window = 500;
  std::uint32_t payload = 0;
  std::uint16_t sport_a = 40000;  // the sender's port
  bool ipv6 = false;
  std::uint16_t gso_size = 0;
};

inline void put16(std::vector<std::byte>& b, std::size_t at, std::uint16_t v) {
  b[at] = std::byte(v >> 8);
  b[at + 1] = std::byte(v & 0xff);
}
inline void put32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) {
  put16(b, at, static_cast<std::uint16_t>(v >> 16));
  put16(b, at + 2, static_cast<std::uint16_t>(v));
}

// vnet header + Ethernet + IPv4/IPv6 + TCP (20 bytes, or 32 with a timestamp option) + payload.
inline std::vector<std::byte> frame(const Seg& s) {
  const std::size_t ip = s.ipv6 ? 40 : 20, tcp = 32;
  std::vector<std::byte> b(10 + 14 + ip + tcp + s.payload, std::byte{0});
  if (s.gso_size) {
    b[1] = std::byte{1};  // VIRTIO_NET_HDR_GSO_TCPV4
    std::memcpy(b.data() + 4, &s.gso_size, 2);
  }
  const std::size_t e = 10, i = 24, t = 24 + ip;
  put16(b, e + 12, s.ipv6 ? 0x86dd : 0x0800);
  const std::uint8_t a_addr[16] = {10, 77, 0, 1}, b_addr[16] = {10, 77, 0, 2};
  const auto* src = s.from_receiver ? b_addr : a_addr;
  const auto* dst = s.from_receiver ? a_addr : b_addr;
  if (s.ipv6) {
    b[i] = std::byte{0x60};
    put16(b, i + 4, static_cast<std::uint16_t>(tcp + s.payload));
    b[i + 6] = std::byte{6};
    std::memcpy(b.data() + i + 8, src, 16);
    std::memcpy(b.data() + i + 24, dst, 16);
  } else {
    b[i] = std::byte{0x45};
    put16(b, i + 2, static_cast<std::uint16_t>(ip + tcp + s.payload));
    put16(b, i + 6, 0x4000);  // DF
    b[i + 9] = std::byte{6};
    std::memcpy(b.data() + i + 12, src, 4);
    std::memcpy(b.data() + i + 16, dst, 4);
  }
  put16(b, t, s.from_receiver ? 5001 : s.sport_a);
  put16(b, t + 2, s.from_receiver ? s.sport_a : 5001);
  put32(b, t + 4, s.seq);
  put32(b, t + 8, s.ack);
  b[t + 12] = std::byte{(tcp / 4) << 4};
  b[t + 13] = std::byte{s.flags};
  put16(b, t + 14, s.window);
  return b;
}

}  // namespace ackstall::lab
