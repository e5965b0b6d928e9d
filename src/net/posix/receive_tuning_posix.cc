// POSIX receiver knobs (receive_tuning.h).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

#include "ackstall/net/receive_tuning.h"
#include "ackstall/net/wait_readable.h"

namespace ackstall::net {
namespace {
std::unexpected<NetError> os_error(std::string_view call, int code = errno) {
  return std::unexpected(NetError{call, code, {}});
}
}  // namespace

NetResult<void> set_quickack(const TcpSocket& s, bool on) {
#if defined(TCP_QUICKACK)
  const int v = on ? 1 : 0;
  if (::setsockopt(s.native(), IPPROTO_TCP, TCP_QUICKACK, &v, sizeof v) != 0) {
    return os_error("setsockopt(TCP_QUICKACK)");
  }
  return {};
#else
  (void)s;
  (void)on;
  return os_error("setsockopt(TCP_QUICKACK)", EOPNOTSUPP);
#endif
}

NetResult<void> set_receive_buffer(const TcpSocket& s, int bytes) {
  if (::setsockopt(s.native(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0) {
    return os_error("setsockopt(SO_RCVBUF)");
  }
  return {};
}

NetResult<bool> wait_readable(const TcpSocket& s, int timeout_ms) {
  // One socket through the general wait (wait_readable.h), which owns the EINTR retry.
  const WaitItem item = WaitItem::of_socket(s.native());
  auto ready = wait_readable(std::span<const WaitItem>(&item, 1), timeout_ms);
  if (!ready) return std::unexpected(std::move(ready.error()));
  return !ready->empty();
}

}  // namespace ackstall::net
