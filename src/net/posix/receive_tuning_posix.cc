// POSIX receiver knobs (receive_tuning.h); Winsock: src/net/win/receive_tuning_win.cc.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>

#include "ackstall/net/receive_tuning.h"

namespace ackstall::net {
namespace {
tl::unexpected<Error> os_error(std::string_view call, int code = errno) {
  return tl::unexpected(Error{call, code, {}});
}
}  // namespace

Result<void> set_quickack(const TcpSocket& s, bool on) {
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

Result<void> set_receive_buffer(const TcpSocket& s, int bytes) {
  if (::setsockopt(s.native(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0) {
    return os_error("setsockopt(SO_RCVBUF)");
  }
  return {};
}

}  // namespace ackstall::net
