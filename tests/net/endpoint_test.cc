#include "ackstall/net/endpoint.h"

#include <gtest/gtest.h>

namespace ackstall::net {
namespace {

TEST(Endpoint, Parses) {
  EXPECT_EQ(parse_endpoint("127.0.0.1:80").value(), (Endpoint{"127.0.0.1", 80}));
  EXPECT_EQ(parse_endpoint("localhost:65535").value(), (Endpoint{"localhost", 65535}));
  EXPECT_EQ(parse_endpoint("[::1]:8080").value(), (Endpoint{"::1", 8080}));
  EXPECT_EQ(to_string(Endpoint{"::1", 8080}), "[::1]:8080");
  EXPECT_EQ(to_string(Endpoint{"h", 1}), "h:1");
}

TEST(Endpoint, RejectsWithAReason) {
  for (const char* bad : {"", "host", "host:", ":80", "host:0", "host:65536", "host:8x", "host:-1",
                          "::1:80", "[::1]80", "[::1:80", "host: 80"}) {
    auto r = parse_endpoint(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_FALSE(r.error().message().empty());
    }
  }
}

// A bare host or v6 address takes the default port; HOST:PORT keeps its own; the rest is refused
// with parse_endpoint's reason.
TEST(Endpoint, OrHostTakesTheDefaultPort) {
  EXPECT_EQ(*parse_endpoint_or_host("host", 5001), (Endpoint{"host", 5001}));
  EXPECT_EQ(*parse_endpoint_or_host("host:80", 5001), (Endpoint{"host", 80}));
  EXPECT_EQ(*parse_endpoint_or_host("::1", 5001), (Endpoint{"::1", 5001}));
  EXPECT_EQ(*parse_endpoint_or_host("[fd77::2]", 5001), (Endpoint{"fd77::2", 5001}));
  EXPECT_EQ(*parse_endpoint_or_host("[::1]:80", 5001), (Endpoint{"::1", 80}));
  for (const char* bad : {"", "host:", "a b", "host:0", "x:y:z", "[::1"}) {
    const auto r = parse_endpoint_or_host(bad, 5001);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().message(), parse_endpoint(bad).error().message()) << bad;
    }
  }
}

}  // namespace
}  // namespace ackstall::net
