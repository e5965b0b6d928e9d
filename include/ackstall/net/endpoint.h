// ackstall/net/endpoint.h — HOST:PORT, parsed without touching the network.
//
// Accepted: "host:port", "1.2.3.4:port", "[v6-address]:port"; port 1..65535 in decimal.
// The host is not resolved here (connect_tcp does that).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ackstall/net/net_error.h"

namespace ackstall::net {

struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// On failure: an Error whose message is a short reason ("missing ':PORT'", "port must be 1..65535", ...).
Result<Endpoint> parse_endpoint(std::string_view text);

// HOST:PORT, [V6]:PORT, or a HOST, V6 address or [V6] alone (then `default_port`); an error
// names what parse_endpoint found wrong.
Result<Endpoint> parse_endpoint_or_host(std::string_view text, std::uint16_t default_port);

// "host:port", or "[host]:port" when host contains ':'.
std::string to_string(const Endpoint& e);

}  // namespace ackstall::net
