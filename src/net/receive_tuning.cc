// receive_tuning.h, through the SocketOps seam (socket_ops.h maps tcp_quickack to TCP_QUICKACK
// on Linux and to SIO_TCP_SET_ACK_FREQUENCY on Windows).
#include "ackstall/net/receive_tuning.h"

#include "ackstall/net/syscalls.h"
#include "ackstall/net/wait_readable.h"

namespace ackstall::net {

Result<void> set_quickack(const TcpSocket& s, bool on) {
  return Syscalls(system_socket_ops())
      .set_option(s.native(), SocketOption::tcp_quickack, on ? 1 : 0);
}

Result<void> set_receive_buffer(const TcpSocket& s, int bytes) {
  return Syscalls(system_socket_ops())
      .set_option(s.native(), SocketOption::receive_buffer, bytes);
}

Result<bool> wait_readable(const TcpSocket& s, int timeout_ms) {
  // One socket through the general wait (wait_readable.h), which owns the EINTR retry.
  const WaitItem item = WaitItem::of_socket(s.native());
  auto ready = wait_readable(std::span<const WaitItem>(&item, 1), timeout_ms);
  if (!ready) return tl::unexpected(std::move(ready.error()));
  return !ready->empty();
}

}  // namespace ackstall::net
