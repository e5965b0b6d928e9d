// ackstall/net/path_probe.h — what the OS knows about a connected TCP socket's path.
//
// Every value the policy needs (MSS, SO_SNDBUF) and the two that explain it (timestamps, MTU)
// comes as a Finding: the value, whether it was measured or is a fallback, and a one-line source
// ("TCP_INFO tcpi_snd_mss", "fallback: interface MTU - 40 ..."). Probing never fails: a failed
// call turns into a fallback whose source quotes the error.
//
// Where each value comes from, in order of preference:
//   mss        the payload of a full segment (full_segment_mss): TCP_INFO tcpi_snd_mss (after
//              options and PMTU; tcpi_advmss where Linux bounds it by half the peer's window),
//              else getsockopt(TCP_MAXSEG),
//              else fallback: MTU - 40 (the seed's update_mss: 20 IP + 20 TCP, no options),
//              minus 12 more when timestamps were measured on.
//   timestamps TCP_INFO tcpi_options & TCPI_OPT_TIMESTAMPS; fallback: assumed off (the seed
//              could not know and assumed "no options").
//   mtu        the interface owning the local address (getifaddrs + SIOCGIFMTU), raised to the
//              576 floor as in the seed's update_mtu (then a fallback); if no interface is found,
//              fallback 1500 (Ethernet, the seed's default).
//   sndbuf     the send-buffer quota the policy uses, in payload bytes: getsockopt(SO_SNDBUF),
//              halved where the kernel reports double (Linux). On Linux that equals the value the
//              application set (after the kernel's clamping to [SOCK_MIN_SNDBUF/2, wmem_max]);
//              with no setsockopt it is half the kernel's own (autotuned) buffer, which counts
//              skb overhead at about the same 2x. Winsock reports the quota itself (no halving).
//              Fallback: 8192, the seed's Winsock default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/link_framing.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/socket_ops.h"
#include "ackstall/net/syscalls.h"

namespace ackstall::net {

// Whether this platform's kernel charges SO_SNDBUF per whole send: Winsock (AFD) does
// (docs/STACKS.md §1); Linux/BSD/macOS free the socket buffer per ACKed byte. What the `auto`
// policy reads (core::SocketParams::per_send_quota; ChunkedSender, SenderOptions).
#ifdef _WIN32
inline constexpr bool kKernelChargesPerSend = true;
#else
inline constexpr bool kKernelChargesPerSend = false;
#endif

// Whether this platform's TCP holds short segments by Minshall's Nagle (Linux tcp_nagle_check,
// tcp_minshall_check) rather than RFC 896's (Windows, BSD, macOS; docs/STACKS.md §1, §3). What
// robust reads for TCP_NODELAY when the quota is full (core::SocketParams::minshall_nagle).
#ifdef __linux__
inline constexpr bool kMinshallNagle = true;
#else
inline constexpr bool kMinshallNagle = false;
#endif

enum class Provenance : std::uint8_t { measured, fallback };
std::string_view to_string(Provenance p) noexcept;

template <class T>
struct Finding {
  T value{};
  Provenance provenance = Provenance::fallback;
  std::string source;
};

inline constexpr std::int64_t kMtuFloor = 576;            // seed: "Forcing minimum IP mtu of 576"
inline constexpr std::int64_t kFallbackMtu = 1500;        // seed: "Ethernet mtu"
inline constexpr std::int64_t kIpTcpHeaders = core::tcp_ip_header_bytes();  // seed: "Assume default TCP/IP hdrs"
inline constexpr std::int64_t kTimestampOption = core::kTimestampOptionBytes;  // 10-byte option + 2 NOP padding
inline constexpr std::int64_t kFallbackSndbuf = 8192;     // seed: "Default for windows"

struct PathReport {
  Finding<std::int64_t> mss;
  Finding<bool> timestamps;
  Finding<std::int64_t> mtu;
  std::string interface;  // owner of the local address; empty when unknown
  Finding<std::int64_t> sndbuf;
  bool stream = true;  // TCP over IPv4/IPv6 (the seed chunks only stream sockets)

  // Raw readings, nullopt when the call failed (for display and cross-checks).
  std::optional<std::int64_t> tcp_info_snd_mss;
  std::optional<std::int64_t> tcp_maxseg;
  std::optional<std::int64_t> sndbuf_reported;  // what getsockopt(SO_SNDBUF) returned

  core::SocketParams params() const noexcept {
    core::SocketParams p{sndbuf.value, mss.value, stream, kKernelChargesPerSend};
    p.minshall_nagle = kMinshallNagle;
    return p;
  }
};

// The payload of a full segment from TCP_INFO (one MSS for every report): tcpi_snd_mss, or
// where Linux has it at half the peer's window (early in a connection with a large MSS, e.g.
// loopback) tcpi_advmss; the source says which.
Finding<std::int64_t> full_segment_mss(const TcpInfo& info);

// Everything (one TCP_INFO, TCP_MAXSEG, SO_SNDBUF, SO_TYPE, interface lookup).
PathReport probe_path(Syscalls& calls, NativeSocket s);

// Just what ChunkedSender needs; the interface lookup runs only if the MSS must fall back.
Finding<std::int64_t> probe_mss(Syscalls& calls, NativeSocket s);
Finding<std::int64_t> probe_send_buffer(Syscalls& calls, NativeSocket s);

}  // namespace ackstall::net
