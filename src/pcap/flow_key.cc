#include "ackstall/pcap/flow_key.h"

#include <fmt/format.h>

#include <charconv>

namespace ackstall::pcap {

FlowKey flow_key_of(const TcpPacket& p) noexcept {
  const SocketAddr s{p.src.addr, p.src.port};
  const SocketAddr d{p.dst.addr, p.dst.port};
  return s <= d ? FlowKey{s, d} : FlowKey{d, s};
}

std::string format_socket_addr(SocketAddr s) {
  return fmt::format("{}:{}", format_ipv4(s.addr), s.port);
}

bool FlowFilter::matches(const FlowKey& key) const noexcept {
  if (endpoints.size() == 1) return endpoints[0].matches(key.a) || endpoints[0].matches(key.b);
  if (endpoints.size() == 2) {
    return (endpoints[0].matches(key.a) && endpoints[1].matches(key.b)) ||
           (endpoints[0].matches(key.b) && endpoints[1].matches(key.a));
  }
  return true;
}

std::optional<std::uint32_t> parse_ipv4(std::string_view text) noexcept {
  std::uint32_t addr = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr == text.data() || v > 255 || ptr - text.data() > 3) {
      return std::nullopt;
    }
    addr = (addr << 8) | v;
    text.remove_prefix(static_cast<std::size_t>(ptr - text.data()));
    if (i < 3) {
      if (text.empty() || text[0] != '.') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  if (!text.empty()) return std::nullopt;
  return addr;
}

namespace {

Result<EndpointPattern> parse_endpoint(std::string_view part, std::string_view whole) {
  EndpointPattern e;
  const auto colon = part.find(':');
  const std::string_view addr = part.substr(0, colon);
  if (!addr.empty()) {
    e.addr = parse_ipv4(addr);
    if (!e.addr) {
      return make_error(fmt::format("bad IPv4 address '{}' in flow filter '{}'", addr, whole));
    }
  }
  if (colon != std::string_view::npos) {
    const std::string_view port = part.substr(colon + 1);
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (port.empty() || ec != std::errc{} || ptr != port.data() + port.size() || v > 65535) {
      return make_error(fmt::format("bad port '{}' in flow filter '{}'", port, whole));
    }
    e.port = static_cast<std::uint16_t>(v);
  }
  if (!e.addr && !e.port) {
    return make_error(fmt::format("empty endpoint in flow filter '{}' (use ADDR, ADDR:PORT or :PORT)",
                                  whole));
  }
  return e;
}

}  // namespace

Result<FlowFilter> parse_flow_filter(std::string_view text) {
  FlowFilter f;
  const auto dash = text.find('-');
  auto first = parse_endpoint(text.substr(0, dash), text);
  if (!first) return tl::unexpected(first.error());
  f.endpoints.push_back(*first);
  if (dash != std::string_view::npos) {
    auto second = parse_endpoint(text.substr(dash + 1), text);
    if (!second) return tl::unexpected(second.error());
    f.endpoints.push_back(*second);
  }
  return f;
}

}  // namespace ackstall::pcap
