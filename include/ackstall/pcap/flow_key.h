// ackstall/pcap/flow_key.h — TCP flows (both directions) and the --flow filter.
//
// FlowKey is canonical: `a` is the lower of the two (addr, port) pairs, so both directions of a
// connection map to one key. FlowFilter matches a flow when every endpoint pattern it holds
// matches one side of the flow (two patterns must match different sides).
// Filter syntax (parse_flow_filter):  ADDR | ADDR:PORT | :PORT | PATTERN-PATTERN
//   e.g. "10.0.0.2", "10.0.0.2:5001", ":5001", "10.0.0.1:40000-10.0.0.2:5001".
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

struct SocketAddr {
  std::uint32_t addr = 0;
  std::uint16_t port = 0;
  friend auto operator<=>(const SocketAddr&, const SocketAddr&) = default;
};

struct FlowKey {
  SocketAddr a, b;  // a <= b
  friend auto operator<=>(const FlowKey&, const FlowKey&) = default;
};

FlowKey flow_key_of(const TcpPacket& p) noexcept;
std::string format_socket_addr(SocketAddr s);  // "10.0.0.1:5001"

struct EndpointPattern {
  std::optional<std::uint32_t> addr;
  std::optional<std::uint16_t> port;
  bool matches(SocketAddr s) const noexcept {
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

}  // namespace ackstall::pcap
