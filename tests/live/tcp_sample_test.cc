#include "ackstall/live/tcp_sample.h"

#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace ackstall::live {
namespace {

std::vector<std::byte> bytes_of(const tcp_info& t, std::size_t len) {
  std::vector<std::byte> b(len);
  std::memcpy(b.data(), &t, std::min(len, sizeof t));
  return b;
}

tcp_info full_info() {
  tcp_info t{};
  t.tcpi_state = 1;
  t.tcpi_ca_state = 3;
  t.tcpi_snd_wscale = 7;
  t.tcpi_rcv_wscale = 9;
  t.tcpi_delivery_rate_app_limited = 1;
  t.tcpi_ato = 40000;
  t.tcpi_unacked = 5;
  t.tcpi_rtt = 1234;
  t.tcpi_min_rtt = 100;
  t.tcpi_bytes_acked = 1'000'000;
  t.tcpi_notsent_bytes = 4096;
  t.tcpi_busy_time = 777;
  t.tcpi_rwnd_limited = 55;
  t.tcpi_sndbuf_limited = 66;
  t.tcpi_bytes_retrans = 1448;
  t.tcpi_snd_wnd = 65535;
  return t;
}

TEST(ParseTcpInfo, FullStructKeepsEveryField) {
  const auto b = bytes_of(full_info(), sizeof(tcp_info));
  const auto i = parse_tcp_info(b);
  ASSERT_TRUE(i) << i.error();
  EXPECT_EQ(i->state, 1);
  EXPECT_EQ(i->ca_state, 3);
  EXPECT_EQ(i->snd_wscale, 7);
  EXPECT_EQ(i->rcv_wscale, 9);
  EXPECT_TRUE(i->app_limited);
  EXPECT_EQ(i->ato_us, 40000U);
  EXPECT_EQ(i->unacked, 5U);
  EXPECT_EQ(i->rtt_us, 1234U);
  EXPECT_EQ(i->min_rtt_us, 100U);
  EXPECT_EQ(i->bytes_acked, 1'000'000U);
  EXPECT_EQ(i->notsent_bytes, 4096U);
  EXPECT_EQ(i->busy_us, 777U);
  EXPECT_EQ(i->rwnd_limited_us, 55U);
  EXPECT_EQ(i->sndbuf_limited_us, 66U);
  EXPECT_EQ(i->bytes_retrans, 1448U);
  EXPECT_EQ(i->snd_wnd, 65535U);
}

TEST(ParseTcpInfo, OlderKernelsShorterStructLeavesTheNewFieldsAbsent) {
  // Linux 4.9 sent up to tcpi_delivery_rate: no chronographs.
  const auto b = bytes_of(full_info(), offsetof(tcp_info, tcpi_busy_time));
  const auto i = parse_tcp_info(b);
  ASSERT_TRUE(i) << i.error();
  EXPECT_FALSE(i->busy_us);
  EXPECT_FALSE(i->sndbuf_limited_us);
  EXPECT_FALSE(i->snd_wnd);
  EXPECT_EQ(i->rtt_us, 1234U);
}

TEST(ParseTcpInfo, TooShortIsAnError) {
  const auto i = parse_tcp_info(bytes_of(full_info(), 40));
  ASSERT_FALSE(i);
  EXPECT_NE(i.error().message().find("40 bytes"), std::string::npos);
}

// One SOCK_DIAG_BY_FAMILY payload: inet_diag_msg, then attributes.
std::vector<std::byte> diag_payload(bool with_info) {
  inet_diag_msg m{};
  m.idiag_family = AF_INET;
  m.id.idiag_sport = htons(5001);
  m.id.idiag_dport = htons(40000);
  m.id.idiag_src[0] = htonl(0x0a000001);
  m.id.idiag_dst[0] = htonl(0x0a000002);
  m.id.idiag_cookie[0] = 7;
  m.id.idiag_cookie[1] = 1;
  std::vector<std::byte> out(NLMSG_ALIGN(sizeof m));
  std::memcpy(out.data(), &m, sizeof m);
  const auto add = [&out](unsigned short type, const void* data, std::size_t len) {
    rtattr a{};
    a.rta_type = type;
    a.rta_len = static_cast<unsigned short>(RTA_LENGTH(len));
    const std::size_t at = out.size();
    out.resize(at + RTA_SPACE(len));
    std::memcpy(out.data() + at, &a, sizeof a);
    std::memcpy(out.data() + at + RTA_LENGTH(0), data, len);
  };
  std::uint32_t mem[SK_MEMINFO_VARS] = {};
  mem[SK_MEMINFO_SNDBUF] = 16384;
  mem[SK_MEMINFO_WMEM_QUEUED] = 9000;
  add(INET_DIAG_SKMEMINFO, mem, sizeof mem);
  if (with_info) {
    const tcp_info t = full_info();
    add(INET_DIAG_INFO, &t, sizeof t);
  }
  return out;
}

TEST(ParseDiagMessage, NamesTheSocketAndReadsItsAttributes) {
  const auto s = parse_diag_message(diag_payload(true), 42);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->at_ns, 42);
  EXPECT_EQ(s->key.local, "10.0.0.1:5001");
  EXPECT_EQ(s->key.remote, "10.0.0.2:40000");
  EXPECT_EQ(s->key.cookie, (std::uint64_t{1} << 32) | 7U);
  ASSERT_TRUE(s->memory);
  EXPECT_EQ(s->memory->sndbuf, 16384U);
  EXPECT_EQ(s->memory->wmem_queued, 9000U);
  EXPECT_EQ(s->info.busy_us, 777U);
}

TEST(ParseDiagMessage, WithoutTcpInfoIsAnErrorNamingTheSocket) {
  const auto s = parse_diag_message(diag_payload(false), 0);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("10.0.0.1:5001"), std::string::npos);
}

TEST(ParseDiagMessage, TruncatedAttributeIsAnError) {
  auto p = diag_payload(true);
  p.resize(p.size() - 50);
  EXPECT_FALSE(parse_diag_message(p, 0));
  EXPECT_FALSE(parse_diag_message(std::span(p).first(10), 0));
}

}  // namespace
}  // namespace ackstall::live
