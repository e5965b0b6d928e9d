// ackstall/net/tcp_socket.h — owning TCP sockets: connect, listen, accept, receive.
//
// Connection setup for the CLI, tests and benchmarks (the send path is ChunkedSender, the
// receive path recv_some). Every function returns a Result naming the failed call; EINTR is
// retried (the same single wrapper Syscalls uses). Sockets are created close-on-exec, in
// blocking mode.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ackstall/net/endpoint.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"
#include "ackstall/net/syscalls.h"

namespace ackstall::net {

class TcpSocket {
 public:
  TcpSocket() noexcept = default;
  explicit TcpSocket(NativeSocket s) noexcept : s_(s) {}
  TcpSocket(TcpSocket&& other) noexcept : s_(other.release()) {}
  TcpSocket& operator=(TcpSocket&& other) noexcept;
  TcpSocket(const TcpSocket&) = delete;
  TcpSocket& operator=(const TcpSocket&) = delete;
  ~TcpSocket() { close(); }

  NativeSocket native() const noexcept { return s_; }
  bool valid() const noexcept { return s_ != kInvalidSocket; }
  NativeSocket release() noexcept;
  void close() noexcept;

 private:
  NativeSocket s_ = kInvalidSocket;
};

// Resolves host, tries each address until one connects within `timeout` (each).
Result<TcpSocket> connect_tcp(const Endpoint& to, std::chrono::milliseconds timeout);

struct Listener {
  TcpSocket socket;
  std::uint16_t port = 0;  // the bound port (useful after binding port 0)
};
// Binds an address (a literal such as "127.0.0.1" or "::1", or a name: its first address); an
// empty host binds every address, IPv6 and IPv4 on one dual-stack socket (IPv4 alone where the
// host has no IPv6). Port 0 picks a free one.
Result<Listener> listen_tcp(const Endpoint& at, int backlog = 16);
Result<TcpSocket> accept_tcp(const TcpSocket& listener);

Result<void> set_nonblocking(const TcpSocket& s, bool on);

// One recv() through system_socket_ops() and Syscalls (EINTR retried, EAGAIN a status):
// bytes (0 with eof = peer closed), or would_block on a nonblocking socket (RecvOutcome:
// syscalls.h).
Result<RecvOutcome> recv_some(const TcpSocket& s, std::span<std::byte> into);

// Half-close the sending direction (shutdown(SHUT_WR)).
Result<void> shutdown_send(const TcpSocket& s);

// Numeric "address:port" of either end.
Result<std::string> local_address(const TcpSocket& s);
Result<std::string> peer_address(const TcpSocket& s);

}  // namespace ackstall::net
