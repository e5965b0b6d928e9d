// ackstall/net/socket_ops.h — the one syscall seam of the socket layer.
//
// Everything the sender, the path probe, the receive path (recv_some, receive_tuning.h) and the
// AFD emulator (afd_emulator.h) ask of a connected socket goes through a SocketOps. The real
// implementation (system_socket_ops(): src/net/posix/ or src/net/win/) is the only code that
// makes those OS calls; tests inject a fake (tests/net/fake_socket_ops.h) to script short
// writes and reads, EAGAIN storms, EINTR, ECONNRESET, poll timeouts and completions.
//
// Contract for implementations:
//   * Raw calls: no retrying. EINTR and EAGAIN/EWOULDBLOCK come back as Error codes; the one
//     retry/classification wrapper is Syscalls (syscalls.h).
//   * send() performs exactly one OS send of the given slices, in order. Callers pass at most
//     kMaxSlicesPerCall slices. ByteSlice -> iovec / WSABUF conversion happens only inside the
//     implementation. The POSIX implementation always adds MSG_NOSIGNAL (no SIGPIPE).
//   * wait_writable(timeout_ms < 0 = forever) returns once the socket is writable or has an
//     error/hang-up pending (the next send reports it); timeout -> ETIMEDOUT.
//   * interface_mtu() finds the interface that owns the socket's local address and its MTU.
//   * recv() performs exactly one OS recv into `into`: bytes received, 0 = end of stream.
//   * poll(s, want, timeout_ms < 0 = forever) performs one poll()/WSAPoll() of the socket for
//     `want` (in, out, or none); error and hangup are reported whether asked for or not. A
//     timeout is PollEvents::none, not an error.
//   * read_error_queue() reads one message of the socket's error queue without blocking
//     (Linux recvmsg(MSG_ERRQUEUE | MSG_DONTWAIT)); an empty queue is EAGAIN.
//   * Options and calls a platform lacks fail with EOPNOTSUPP (TCP_INFO, ISB: ENOPROTOOPT);
//     recv, poll and read_error_queue default to EOPNOTSUPP so that a send-only SocketOps
//     (a benchmark's null OS) need not implement them.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ackstall/core/io_cursor.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"

namespace ackstall::net {

// IOV_MAX on Linux/glibc and the BSDs; the POSIX implementation static_asserts it.
inline constexpr std::size_t kMaxSlicesPerCall = 1024;

// Platform-neutral send flags (mapped to MSG_* by the implementation).
enum class SendFlags : unsigned {
  none = 0,
  dont_wait = 1u << 0,  // MSG_DONTWAIT: this call behaves as on a nonblocking socket
  more = 1u << 1,       // MSG_MORE (Linux): more data follows, hold a partial segment
};
constexpr SendFlags operator|(SendFlags a, SendFlags b) noexcept {
  return static_cast<SendFlags>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(SendFlags set, SendFlags flag) noexcept {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(flag)) != 0;
}

// Integer socket options the library reads or sets.
enum class SocketOption : std::uint8_t {
  send_buffer,        // SOL_SOCKET SO_SNDBUF
  tcp_maxseg,         // IPPROTO_TCP TCP_MAXSEG
  tcp_nodelay,        // IPPROTO_TCP TCP_NODELAY
  send_buffer_force,  // SOL_SOCKET SO_SNDBUFFORCE (Linux, CAP_NET_ADMIN: above wmem_max)
  receive_buffer,     // SOL_SOCKET SO_RCVBUF
  socket_error,       // SOL_SOCKET SO_ERROR (read only: the pending error, cleared by reading)
  // TCP_QUICKACK (Linux, tcp(7)); Windows: SIO_TCP_SET_ACK_FREQUENCY, 1 -> frequency 1 (ACK
  // every segment), 0 -> 2 (Windows' default). Set only.
  tcp_quickack,
  // SO_TIMESTAMPING with SOF_TIMESTAMPING_TX_ACK | SOFTWARE | OPT_ID | OPT_TSONLY when set to
  // nonzero (Linux; after connect: OPT_ID numbers bytes from then on). Set only.
  tx_ack_timestamps,
};
std::string_view to_string(SocketOption opt) noexcept;

// The parts of TCP_INFO (Linux) / SIO_TCP_INFO (Windows) the probe uses.
struct TcpInfo {
  std::int64_t snd_mss = 0;  // tcpi_snd_mss: current sending MSS in bytes
  bool timestamps = false;   // tcpi_options & TCPI_OPT_TIMESTAMPS
  // Data sent and not yet ACKed: segments (Linux tcpi_unacked) or bytes (Windows BytesInFlight);
  // 0 once everything sent is ACKed; -1 where the OS does not say.
  std::int64_t in_flight = -1;
  std::int64_t advmss = 0;    // Linux tcpi_advmss: this end's own full-segment payload (0: unknown)
  // The peer's window in bytes: Linux tcpi_snd_wnd (5.19+), Windows TCP_INFO_v0.SndWnd (-1: unknown).
  std::int64_t snd_wnd = -1;
};

struct InterfaceMtu {
  std::string interface;  // e.g. "lo", "eth0"
  std::int64_t mtu = 0;   // bytes, as the interface reports it (no floor applied)
};

struct SocketKind {
  bool stream = false;  // SOCK_STREAM
  bool ip = false;      // AF_INET or AF_INET6
};

// poll() events: asked for (in, out) and reported (all of them).
enum class PollEvents : unsigned {
  none = 0,
  in = 1u << 0,       // POLLIN: data, end of stream, or a connection to accept
  out = 1u << 1,      // POLLOUT: a send would not block
  error = 1u << 2,    // POLLERR: a socket error or (Linux) an error-queue message is pending
  hangup = 1u << 3,   // POLLHUP: the connection is gone
  invalid = 1u << 4,  // POLLNVAL: not an open socket
};
constexpr PollEvents operator|(PollEvents a, PollEvents b) noexcept {
  return static_cast<PollEvents>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(PollEvents set, PollEvents flag) noexcept {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(flag)) != 0;
}

// One error-queue message (Linux MSG_ERRQUEUE), decoded. Only SO_TIMESTAMPING TX_ACK reports
// (SO_EE_ORIGIN_TIMESTAMPING, SCM_TSTAMP_ACK) are of interest; anything else (an ICMP error, a
// SCHED/SND timestamp) comes back with tx_ack == false and is skipped by the reader. The kernel
// puts exactly one sock_extended_err in each message (ip_recv_error / ipv6_recv_error).
struct ErrorQueueEntry {
  bool tx_ack = false;
  std::uint32_t id = 0;  // ee_data: OPT_ID of the last byte the report covers, modulo 2^32
  friend bool operator==(const ErrorQueueEntry&, const ErrorQueueEntry&) = default;
};

class SocketOps {
 public:
  virtual ~SocketOps() = default;

  // One sendmsg()/WSASend(): bytes accepted (may be fewer than offered).
  virtual Result<std::size_t> send(NativeSocket s, std::span<const core::ByteSlice> slices,
                                      SendFlags flags) = 0;
  virtual Result<void> wait_writable(NativeSocket s, int timeout_ms) = 0;
  virtual Result<int> get_option(NativeSocket s, SocketOption opt) = 0;
  virtual Result<void> set_option(NativeSocket s, SocketOption opt, int value) = 0;
  virtual Result<bool> is_nonblocking(NativeSocket s) = 0;
  virtual Result<TcpInfo> tcp_info(NativeSocket s) = 0;
  virtual Result<InterfaceMtu> interface_mtu(NativeSocket s) = 0;
  virtual Result<SocketKind> socket_kind(NativeSocket s) = 0;

  // One recv() of up to into.size() bytes: bytes received (0 = end of stream).
  virtual Result<std::size_t> recv(NativeSocket /*s*/, std::span<std::byte> /*into*/) {
    return core::os_failure("recv", EOPNOTSUPP);
  }
  // One poll() of one socket: the events that occurred (none = timeout).
  virtual Result<PollEvents> poll(NativeSocket /*s*/, PollEvents /*want*/, int /*timeout_ms*/) {
    return core::os_failure("poll", EOPNOTSUPP);
  }
  // One non-blocking read of the error queue (EAGAIN when empty).
  virtual Result<ErrorQueueEntry> read_error_queue(NativeSocket /*s*/) {
    return core::os_failure("recvmsg(MSG_ERRQUEUE)", EOPNOTSUPP);
  }

  // Windows' ideal send backlog in bytes (SIO_IDEAL_SEND_BACKLOG_QUERY, Vista SP1+), for the
  // `isb` policy (ideal_send_backlog.h). Default: ENOPROTOOPT (POSIX has no such query).
  virtual Result<std::int64_t> ideal_send_backlog(NativeSocket /*s*/) {
    return core::os_failure("ideal_send_backlog", ENOPROTOOPT);
  }

  // True where getsockopt(SO_SNDBUF) reports twice the value set (Linux: the kernel doubles the
  // request to leave room for bookkeeping overhead, socket(7)).
  virtual bool send_buffer_reported_doubled() const noexcept = 0;

 protected:
  SocketOps() = default;
  SocketOps(const SocketOps&) = default;
  SocketOps& operator=(const SocketOps&) = default;
};

// The process-wide OS implementation (stateless, thread-safe).
SocketOps& system_socket_ops();

}  // namespace ackstall::net
