#include "ackstall/net/endpoint.h"

#include <algorithm>
#include <charconv>

namespace ackstall::net {

Result<Endpoint> parse_endpoint(std::string_view text) {
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return core::fail("missing ']' after IPv6 address");
    host = text.substr(1, close - 1);
    const std::string_view rest = text.substr(close + 1);
    if (!rest.starts_with(':')) return core::fail("missing ':PORT'");
    port = rest.substr(1);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return core::fail("missing ':PORT'");
    host = text.substr(0, colon);
    if (host.find(':') != std::string_view::npos) {
      return core::fail("IPv6 addresses need brackets: [ADDRESS]:PORT");
    }
    port = text.substr(colon + 1);
  }
  if (host.empty()) return core::fail("missing HOST");
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || value == 0 ||
      value > 65535) {
    return core::fail("port must be 1..65535, got '" + std::string(port) + "'");
  }
  return Endpoint{std::string(host), static_cast<std::uint16_t>(value)};
}

Result<Endpoint> parse_endpoint_or_host(std::string_view text, std::uint16_t default_port) {
  if (auto e = parse_endpoint(text)) return e;
  std::string host(text);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const bool bare_v6 = std::count(host.begin(), host.end(), ':') >= 2 &&
                       host.find_first_not_of("0123456789abcdefABCDEF:.") == std::string::npos;
  if (host.empty() || host.find_first_of("[]/ ") != std::string::npos ||
      (!bare_v6 && host.find(':') != std::string::npos)) {
    return tl::unexpected(parse_endpoint(text).error());
  }
  return Endpoint{host, default_port};
}

std::string to_string(const Endpoint& e) {
  const bool v6 = e.host.find(':') != std::string::npos;
  return (v6 ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port);
}

}  // namespace ackstall::net
