#include <gtest/gtest.h>

#include "ackstall/live/sock_diag.h"

namespace ackstall::live {
namespace {

SocketKey key(std::string local, std::uint16_t lport, std::string remote, std::uint16_t rport) {
  return {local + ":" + std::to_string(lport), remote + ":" + std::to_string(rport), lport, rport, 1};
}

TEST(EndpointFilter, ParsesEachSpelling) {
  auto f = parse_endpoint_filter(":5001");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->addr, "");
  EXPECT_EQ(f->port, 5001);
  f = parse_endpoint_filter("10.0.0.1");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->addr, "10.0.0.1");
  EXPECT_FALSE(f->port);
  f = parse_endpoint_filter("[fd00:0::1]:80");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->addr, "[fd00::1]");
  EXPECT_EQ(f->port, 80);
  f = parse_endpoint_filter("fd00::1");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->addr, "[fd00::1]");
}

TEST(EndpointFilter, BadSpellingsNameWhatIsWrong) {
  for (const char* bad : {":", "10.0.0.1:", ":70000", ":5x", "host:80", "[fd00::1", "[fd00::1]x", ""}) {
    const auto f = parse_endpoint_filter(bad);
    ASSERT_FALSE(f) << bad;
    EXPECT_NE(f.error().message().find("endpoint '"), std::string::npos) << f.error();
  }
}

TEST(SampleFilterMatch, EitherSideAndAnyEndpoint) {
  SampleFilter f;
  EXPECT_TRUE(matches(f, key("10.0.0.1", 5001, "10.0.0.2", 40000)));
  f.endpoints.push_back(*parse_endpoint_filter(":5001"));
  EXPECT_TRUE(matches(f, key("10.0.0.1", 5001, "10.0.0.2", 40000)));
  EXPECT_TRUE(matches(f, key("10.0.0.2", 40000, "10.0.0.1", 5001)));
  EXPECT_FALSE(matches(f, key("10.0.0.2", 40000, "10.0.0.1", 5002)));
  f.endpoints = {*parse_endpoint_filter("10.0.0.1:5002")};
  EXPECT_TRUE(matches(f, key("10.0.0.2", 40000, "10.0.0.1", 5002)));
  EXPECT_FALSE(matches(f, key("10.0.0.11", 5002, "10.0.0.2", 5002)));  // 10.0.0.1 is not a prefix match
}

}  // namespace
}  // namespace ackstall::live
