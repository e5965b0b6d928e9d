#include "ackstall/live/tcp_sample.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace ackstall::live {
namespace {

// Is FIELD (at OFFSET, SIZE bytes) inside what the kernel sent?
constexpr bool has(std::size_t len, std::size_t offset, std::size_t size) { return offset + size <= len; }
#define ACKSTALL_HAS(len, field) has(len, offsetof(struct tcp_info, field), sizeof(tcp_info::field))

std::string endpoint_text(int family, const std::uint32_t (&addr)[4], std::uint16_t port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(family, addr, buf, sizeof buf) == nullptr) return "?:" + std::to_string(port);
  return family == AF_INET6 ? "[" + std::string(buf) + "]:" + std::to_string(port)
                            : std::string(buf) + ":" + std::to_string(port);
}

}  // namespace

core::Result<TcpInfo> parse_tcp_info(std::span<const std::byte> bytes) {
  const std::size_t len = bytes.size();
  if (!ACKSTALL_HAS(len, tcpi_total_retrans)) {
    return core::fail("tcp_info of " + std::to_string(len) + " bytes: shorter than the 104 of Linux 2.6");
  }
  tcp_info t{};
  std::memcpy(&t, bytes.data(), std::min(len, sizeof t));
  TcpInfo i;
  i.state = t.tcpi_state;
  i.ca_state = t.tcpi_ca_state;
  i.options = t.tcpi_options;
  i.snd_wscale = static_cast<std::uint8_t>(t.tcpi_snd_wscale);
  i.rcv_wscale = static_cast<std::uint8_t>(t.tcpi_rcv_wscale);
  i.app_limited = t.tcpi_delivery_rate_app_limited != 0;
  i.rto_us = t.tcpi_rto;
  i.ato_us = t.tcpi_ato;
  i.snd_mss = t.tcpi_snd_mss;
  i.rcv_mss = t.tcpi_rcv_mss;
  i.unacked = t.tcpi_unacked;
  i.lost = t.tcpi_lost;
  i.retrans = t.tcpi_retrans;
  i.rtt_us = t.tcpi_rtt;
  i.rttvar_us = t.tcpi_rttvar;
  i.snd_cwnd = t.tcpi_snd_cwnd;
  i.total_retrans = t.tcpi_total_retrans;
  i.bytes_acked = t.tcpi_bytes_acked;        // zero-filled when absent (before 4.1): no progress seen
  i.bytes_received = t.tcpi_bytes_received;
  i.notsent_bytes = t.tcpi_notsent_bytes;
  i.min_rtt_us = t.tcpi_min_rtt;
  i.delivery_rate = t.tcpi_delivery_rate;
  if (ACKSTALL_HAS(len, tcpi_sndbuf_limited)) {
    i.busy_us = t.tcpi_busy_time;
    i.rwnd_limited_us = t.tcpi_rwnd_limited;
    i.sndbuf_limited_us = t.tcpi_sndbuf_limited;
  }
  if (ACKSTALL_HAS(len, tcpi_bytes_retrans)) {
    i.bytes_sent = t.tcpi_bytes_sent;
    i.bytes_retrans = t.tcpi_bytes_retrans;
  }
  if (ACKSTALL_HAS(len, tcpi_snd_wnd)) i.snd_wnd = t.tcpi_snd_wnd;
  return i;
}
#undef ACKSTALL_HAS

core::Result<Sample> parse_diag_message(std::span<const std::byte> payload, std::int64_t at_ns) {
  if (payload.size() < sizeof(inet_diag_msg)) {
    return core::fail("inet_diag answer of " + std::to_string(payload.size()) + " bytes: shorter than inet_diag_msg");
  }
  inet_diag_msg msg{};
  std::memcpy(&msg, payload.data(), sizeof msg);
  Sample s;
  s.at_ns = at_ns;
  s.key.local_port = ntohs(msg.id.idiag_sport);
  s.key.remote_port = ntohs(msg.id.idiag_dport);
  s.key.local = endpoint_text(msg.idiag_family, msg.id.idiag_src, s.key.local_port);
  s.key.remote = endpoint_text(msg.idiag_family, msg.id.idiag_dst, s.key.remote_port);
  s.key.cookie = (std::uint64_t{msg.id.idiag_cookie[1]} << 32) | msg.id.idiag_cookie[0];
  bool have_info = false;
  // The attributes follow the message, each 4-byte aligned (RTA_ALIGN, linux/rtnetlink.h).
  std::size_t off = NLMSG_ALIGN(sizeof msg);
  while (off + sizeof(rtattr) <= payload.size()) {
    rtattr a{};
    std::memcpy(&a, payload.data() + off, sizeof a);
    if (a.rta_len < sizeof a || off + a.rta_len > payload.size()) {
      return core::fail("inet_diag answer for " + s.key.local + ": attribute overruns the message");
    }
    const auto data = payload.subspan(off + RTA_ALIGN(sizeof a), a.rta_len - RTA_ALIGN(sizeof a));
    if (a.rta_type == INET_DIAG_INFO) {
      auto info = parse_tcp_info(data);
      if (!info) return tl::unexpected(info.error());
      s.info = *info;
      have_info = true;
    } else if (a.rta_type == INET_DIAG_SKMEMINFO && data.size() >= SK_MEMINFO_WMEM_QUEUED * 4 + 4) {
      std::uint32_t m[SK_MEMINFO_VARS] = {};
      std::memcpy(m, data.data(), std::min(data.size(), sizeof m));
      s.memory = SocketMemory{m[SK_MEMINFO_SNDBUF], m[SK_MEMINFO_WMEM_QUEUED], m[SK_MEMINFO_RCVBUF]};
    }
    off += RTA_ALIGN(a.rta_len);
  }
  if (!have_info) return core::fail("socket " + s.key.local + " -> " + s.key.remote + ": no tcp_info (closing)");
  return s;
}

}  // namespace ackstall::live
