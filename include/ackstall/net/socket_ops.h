// ackstall/net/socket_ops.h — the one syscall seam of the socket layer.
//
// Everything the sender and the path probe ask of the OS goes through a SocketOps. The real
// implementation (system_socket_ops(): src/net/posix/ or src/net/win/) is the only
// code that includes OS socket headers; tests inject a fake to script short writes, EAGAIN
// storms, EINTR and ECONNRESET deterministically.
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
  send_buffer,  // SOL_SOCKET SO_SNDBUF
  tcp_maxseg,   // IPPROTO_TCP TCP_MAXSEG
  tcp_nodelay,  // IPPROTO_TCP TCP_NODELAY
};
std::string_view to_string(SocketOption opt) noexcept;

// The parts of TCP_INFO (Linux) / SIO_TCP_INFO (Windows) the probe uses.
struct TcpInfo {
  std::int64_t snd_mss = 0;  // tcpi_snd_mss: current sending MSS in bytes
  bool timestamps = false;   // tcpi_options & TCPI_OPT_TIMESTAMPS
};

struct InterfaceMtu {
  std::string interface;  // e.g. "lo", "eth0"
  std::int64_t mtu = 0;   // bytes, as the interface reports it (no floor applied)
};

struct SocketKind {
  bool stream = false;  // SOCK_STREAM
  bool ip = false;      // AF_INET or AF_INET6
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

  // Windows' ideal send backlog in bytes (SIO_IDEAL_SEND_BACKLOG_QUERY, Vista SP1+), for the
  // `isb` policy (ideal_send_backlog.h). Default: ENOPROTOOPT (POSIX has no such query).
  virtual Result<std::int64_t> ideal_send_backlog(NativeSocket /*s*/) {
    return tl::unexpected(Error{"ideal_send_backlog", ENOPROTOOPT, {}});
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
