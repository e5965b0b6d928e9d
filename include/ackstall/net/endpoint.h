// ackstall/net/endpoint.h — HOST:PORT, parsed without touching the network.
//
// Accepted: "host:port", "1.2.3.4:port", "[v6-address]:port"; port 1..65535 in decimal.
// The host is not resolved here (connect_tcp does that).
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace ackstall::net {

struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// On failure: a short reason ("missing ':PORT'", "port must be 1..65535", ...).
std::expected<Endpoint, std::string> parse_endpoint(std::string_view text);

// "host:port", or "[host]:port" when host contains ':'.
std::string to_string(const Endpoint& e);

}  // namespace ackstall::net
