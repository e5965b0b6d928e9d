#include "ackstall/pcap/flow_key.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace ackstall::pcap {

IpAddr IpAddr::ipv6(const std::uint8_t* sixteen) noexcept {
  IpAddr a;
  a.v6 = true;
  std::copy_n(sixteen, 16, a.bytes.begin());
  return a;
}

std::string format_ip(const IpAddr& a) {
  if (!a.v6) return fmt::format("{}.{}.{}.{}", a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]);
  char buf[INET6_ADDRSTRLEN] = {};
  // inet_ntop gives RFC 5952's canonical text (lower case, longest zero run as ::).
  if (inet_ntop(AF_INET6, a.bytes.data(), buf, sizeof buf) == nullptr) return "?";
  return buf;
}

FlowKey flow_key_of(const TcpPacket& p) noexcept {
  return make_flow_key({p.src.addr, p.src.port}, {p.dst.addr, p.dst.port});
}

std::string format_socket_addr(const SocketAddr& s) {
  if (s.addr.v6) return fmt::format("[{}]:{}", format_ip(s.addr), s.port);
  return fmt::format("{}:{}", format_ip(s.addr), s.port);
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

std::optional<IpAddr> parse_ipv6(std::string_view text) noexcept {
  if (text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN] = {};
  std::copy(text.begin(), text.end(), buf);
  std::uint8_t out[16] = {};
  if (inet_pton(AF_INET6, buf, out) != 1) return std::nullopt;
  return IpAddr::ipv6(out);
}

namespace {

Result<std::uint16_t> parse_port(std::string_view port, std::string_view whole) {
  unsigned v = 0;
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
  if (port.empty() || ec != std::errc{} || ptr != port.data() + port.size() || v > 65535) {
    return make_error(fmt::format("bad port '{}' in flow filter '{}'", port, whole));
  }
  return static_cast<std::uint16_t>(v);
}

Result<EndpointPattern> parse_endpoint(std::string_view part, std::string_view whole) {
  EndpointPattern e;
  std::string_view addr, port;
  bool has_port = false;
  if (!part.empty() && part.front() == '[') {  // [v6]:port (RFC 3986 §3.2.2)
    const auto close = part.find(']');
    if (close == std::string_view::npos) {
      return make_error(fmt::format("missing ']' in flow filter '{}'", whole));
    }
    addr = part.substr(1, close - 1);
    const std::string_view rest = part.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') {
        return make_error(fmt::format("expected ':PORT' after ']' in flow filter '{}'", whole));
      }
      has_port = true;
      port = rest.substr(1);
    }
    e.addr = parse_ipv6(addr);
    if (!e.addr) return make_error(fmt::format("bad IPv6 address '{}' in flow filter '{}'", addr, whole));
  } else if (std::count(part.begin(), part.end(), ':') > 1) {  // a bare IPv6 address
    e.addr = parse_ipv6(part);
    if (!e.addr) {
      return make_error(fmt::format("bad IPv6 address '{}' in flow filter '{}' (write [ADDR]:PORT "
                                    "for a port)", part, whole));
    }
  } else {
    const auto colon = part.find(':');
    addr = part.substr(0, colon);
    if (colon != std::string_view::npos) {
      has_port = true;
      port = part.substr(colon + 1);
    }
    if (!addr.empty()) {
      const auto v4 = parse_ipv4(addr);
      if (!v4) return make_error(fmt::format("bad IPv4 address '{}' in flow filter '{}'", addr, whole));
      e.addr = IpAddr(*v4);
    }
  }
  if (has_port) {
    auto p = parse_port(port, whole);
    if (!p) return tl::unexpected(p.error());
    e.port = *p;
  }
  if (!e.addr && !e.port) {
    return make_error(fmt::format("empty endpoint in flow filter '{}' (use ADDR, ADDR:PORT, [V6]:PORT "
                                  "or :PORT)", whole));
  }
  return e;
}

}  // namespace

Result<FlowFilter> parse_flow_filter(std::string_view text) {
  FlowFilter f;
  // The pair separator is the '-' outside brackets (IPv6 addresses contain no '-').
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
