// ackstall/pcap/flow_key.h — TCP flows (both directions, IPv4 or IPv6) and the --flow filter.
//
// FlowKey is canonical: `a` is the lower of the two (addr, port) pairs, so both directions of a
// connection map to one key. IPv4 flows order before IPv6 flows; IPv4 addresses order as their
// host-order integers. FlowFilter matches a flow when every endpoint pattern it holds matches one
// side of the flow (two patterns must match different sides).
// Filter syntax (parse_flow_filter):  ADDR | ADDR:PORT | :PORT | PATTERN-PATTERN, where an IPv6
// ADDR is written in brackets when a port follows or as a pattern of a pair (RFC 3986 §3.2.2):
//   e.g. "10.0.0.2", "10.0.0.2:5001", ":5001", "10.0.0.1:40000-10.0.0.2:5001",
//        "fd00::2", "[fd00::2]:5001", "[fd00::1]:40000-[fd00::2]:5001".
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

// An IPv4 address (the first 4 bytes, network order) or an IPv6 address (16 bytes).
struct IpAddr {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};

  constexpr IpAddr() = default;
  // IPv4 from a host-order integer (10.0.0.1 == 0x0a000001).
  constexpr IpAddr(std::uint32_t v4)  // NOLINT(google-explicit-constructor): addresses read as values
      : bytes{static_cast<std::uint8_t>(v4 >> 24), static_cast<std::uint8_t>(v4 >> 16),
              static_cast<std::uint8_t>(v4 >> 8), static_cast<std::uint8_t>(v4)} {}
  static IpAddr ipv6(const std::uint8_t* sixteen) noexcept;
  // The order of (v6, bytes) compared lexicographically, as two big-endian 64-bit words: the
  // defaulted <=> called memcmp for every packet's flow lookup (callgrind: 8 % of a scan).
  friend std::strong_ordering operator<=>(const IpAddr& x, const IpAddr& y) noexcept {
    if (x.v6 != y.v6) return x.v6 <=> y.v6;
    if (const auto c = x.word(0) <=> y.word(0); c != 0) return c;
    return x.word(1) <=> y.word(1);
  }
  friend bool operator==(const IpAddr& x, const IpAddr& y) noexcept {  // equal words in any byte order
    return x.v6 == y.v6 && x.raw_word(0) == y.raw_word(0) && x.raw_word(1) == y.raw_word(1);
  }

 private:
  std::uint64_t raw_word(std::size_t i) const noexcept {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes.data() + 8 * i, 8);
    return w;
  }
  std::uint64_t word(std::size_t i) const noexcept {
    std::uint64_t w = raw_word(i);
    if constexpr (std::endian::native == std::endian::little) w = std::byteswap(w);
    return w;
  }
};

std::string format_ip(const IpAddr& a);  // "10.0.0.1", "fd00::1" (RFC 5952)

struct SocketAddr {
  IpAddr addr;
  std::uint16_t port = 0;
  friend auto operator<=>(const SocketAddr&, const SocketAddr&) = default;
};

struct FlowKey {
  SocketAddr a, b;  // a <= b
  friend auto operator<=>(const FlowKey&, const FlowKey&) = default;
};

inline FlowKey make_flow_key(const SocketAddr& s, const SocketAddr& d) noexcept {
  return s <= d ? FlowKey{s, d} : FlowKey{d, s};
}
FlowKey flow_key_of(const TcpPacket& p) noexcept;  // IPv4: from the packet's endpoints
std::string format_socket_addr(const SocketAddr& s);  // "10.0.0.1:5001", "[fd00::1]:5001"

struct EndpointPattern {
  std::optional<IpAddr> addr;
  std::optional<std::uint16_t> port;
  bool matches(const SocketAddr& s) const noexcept {
    return (!addr || *addr == s.addr) && (!port || *port == s.port);
  }
};

struct FlowFilter {
  std::vector<EndpointPattern> endpoints;  // 1 or 2
  bool matches(const FlowKey& key) const noexcept;
};

// Error message names the bad part, e.g. "bad port '70000' in flow filter '1.2.3.4:70000'".
Result<FlowFilter> parse_flow_filter(std::string_view text);
std::optional<std::uint32_t> parse_ipv4(std::string_view text) noexcept;
std::optional<IpAddr> parse_ipv6(std::string_view text) noexcept;  // inet_pton(AF_INET6)

}  // namespace ackstall::pcap
