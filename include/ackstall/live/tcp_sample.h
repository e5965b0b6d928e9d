// ackstall/live/tcp_sample.h — one TCP socket as the Linux kernel accounts it at one moment: the
// inet_diag answer (the `ss -ti` source: linux/inet_diag.h) with its struct tcp_info (linux/tcp.h)
// and socket memory (linux/sock_diag.h SK_MEMINFO_*), in plain fields so that the attribution
// (attribution.h) and its tests need no Linux header and no syscall.
//
// Units follow the kernel's: times in microseconds (tcpi_*_time, tcpi_rtt), counters since the
// socket opened. A field the kernel did not send (an older kernel's shorter tcp_info) is absent
// (std::nullopt), never zero: tcpi_busy_time and friends need Linux 4.10, tcpi_snd_wnd 5.4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ackstall/core/error.h"

namespace ackstall::live {

// "10.0.0.1:5001" / "[fd00::1]:5001" and the socket's identity across samples (idiag_cookie).
struct SocketKey {
  std::string local, remote;  // address:port
  std::uint16_t local_port = 0, remote_port = 0;
  std::uint64_t cookie = 0;
  friend bool operator==(const SocketKey&, const SocketKey&) = default;
};

struct TcpInfo {
  std::uint8_t state = 0;      // TCP_ESTABLISHED = 1 ... (include/net/tcp_states.h)
  std::uint8_t ca_state = 0;   // 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss
  std::uint8_t options = 0;    // TCPI_OPT_TIMESTAMPS 1, SACK 2, WSCALE 4, ECN 8
  std::uint8_t snd_wscale = 0, rcv_wscale = 0;
  bool app_limited = false;    // tcpi_delivery_rate_app_limited
  std::uint32_t rto_us = 0, ato_us = 0, snd_mss = 0, rcv_mss = 0;
  std::uint32_t unacked = 0, lost = 0, retrans = 0;  // segments now
  std::uint32_t rtt_us = 0, rttvar_us = 0, min_rtt_us = 0, snd_cwnd = 0;
  std::uint32_t total_retrans = 0;
  std::uint64_t bytes_acked = 0, bytes_received = 0;
  std::uint32_t notsent_bytes = 0;
  std::uint64_t delivery_rate = 0;  // bytes/s
  std::optional<std::uint64_t> busy_us, rwnd_limited_us, sndbuf_limited_us;  // Linux 4.10+
  std::optional<std::uint64_t> bytes_sent, bytes_retrans;                    // Linux 4.19+
  std::optional<std::uint32_t> snd_wnd;                                      // Linux 5.4+
};

struct SocketMemory {
  std::uint32_t sndbuf = 0;       // SK_MEMINFO_SNDBUF: the send buffer's limit (bytes, doubled)
  std::uint32_t wmem_queued = 0;  // SK_MEMINFO_WMEM_QUEUED: what the write queue holds
  std::uint32_t rcvbuf = 0;       // SK_MEMINFO_RCVBUF
};

struct Sample {
  std::int64_t at_ns = 0;  // CLOCK_MONOTONIC when the dump was read
  SocketKey key;
  TcpInfo info;
  std::optional<SocketMemory> memory;
};

// Decodes a struct tcp_info of LEN bytes as the kernel sends it (INET_DIAG_INFO, or
// getsockopt(TCP_INFO)): fields beyond LEN are absent. Fails only below the 4.x core (104 bytes:
// up to tcpi_total_retrans).
core::Result<TcpInfo> parse_tcp_info(std::span<const std::byte> bytes);

// Decodes one SOCK_DIAG_BY_FAMILY answer (struct inet_diag_msg and its attributes, without the
// netlink header) taken at AT_NS: a message without INET_DIAG_INFO (a socket closing between the
// kernel's dump and its info) is an error naming the socket.
core::Result<Sample> parse_diag_message(std::span<const std::byte> payload, std::int64_t at_ns);

}  // namespace ackstall::live
