#include "ackstall/pcap/flow_key.h"

#include <gtest/gtest.h>

namespace ackstall::pcap {
namespace {

TEST(FlowKey, CanonicalForBothDirections) {
  TcpPacket p;
  p.src = {0x0a000002, 5001, {}};
  p.dst = {0x0a000001, 40000, {}};
  const FlowKey k = flow_key_of(p);
  std::swap(p.src, p.dst);
  EXPECT_EQ(flow_key_of(p), k);
  EXPECT_EQ(format_socket_addr(k.a), "10.0.0.1:40000");
}

TEST(FlowFilter, Syntax) {
  const FlowKey k{{0x0a000001, 40000}, {0x0a000002, 5001}};
  for (const char* yes : {"10.0.0.1", "10.0.0.2:5001", ":40000", "10.0.0.2:5001-10.0.0.1:40000",
                          "10.0.0.1-:5001"}) {
    auto f = parse_flow_filter(yes);
    ASSERT_TRUE(f) << yes << ": " << f.error().message();
    EXPECT_TRUE(f->matches(k)) << yes;
  }
  for (const char* no : {"10.0.0.3", ":5002", "10.0.0.1:5001", "10.0.0.1-10.0.0.1"}) {
    auto f = parse_flow_filter(no);
    ASSERT_TRUE(f) << no;
    EXPECT_FALSE(f->matches(k)) << no;
  }
  EXPECT_EQ(parse_flow_filter("1.2.3.4:70000").error().message(),
            "bad port '70000' in flow filter '1.2.3.4:70000'");
  EXPECT_EQ(parse_flow_filter("1.2.3:80").error().message(),
            "bad IPv4 address '1.2.3' in flow filter '1.2.3:80'");
  EXPECT_FALSE(parse_flow_filter(""));
  EXPECT_FALSE(parse_flow_filter("256.1.1.1"));
  EXPECT_FALSE(parse_flow_filter("1.2.3.4:"));
  EXPECT_FALSE(parse_ipv4("1.2.3.4.5"));
  EXPECT_EQ(parse_ipv4("192.168.0.1"), 0xc0a80001u);
}

TEST(FlowKey, Ipv6FiltersInBrackets) {
  auto f = parse_flow_filter("[fd00::2]:5001");
  ASSERT_TRUE(f) << f.error();
  const SocketAddr a{*parse_ipv6("fd00::1"), 40000}, b{*parse_ipv6("fd00::2"), 5001};
  EXPECT_TRUE(f->matches(make_flow_key(a, b)));
  EXPECT_EQ(format_socket_addr(b), "[fd00::2]:5001");
  EXPECT_TRUE(parse_flow_filter("fd00::2"));
  EXPECT_TRUE(parse_flow_filter("[fd00::1]:40000-[fd00::2]:5001"));
  EXPECT_FALSE(parse_flow_filter("[fd00::2"));
  EXPECT_FALSE(parse_flow_filter("[zz::1]:5"));
}

}  // namespace
}  // namespace ackstall::pcap
