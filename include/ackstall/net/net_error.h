// ackstall/net/net_error.h — a failed OS call, as a value.
//
// Contract:
//   * `call` names the OS call that failed ("sendmsg", "getsockopt(SO_SNDBUF)", ...). It must
//     point to storage that outlives the error: always a string literal in this library.
//   * `code` is an errno value from <cerrno> (POSIX numbering). The Winsock port maps WSAE* codes
//     onto the same <cerrno> names (WSAECONNRESET -> ECONNRESET, WSAEWOULDBLOCK -> EWOULDBLOCK).
//   * `detail` is empty for errno failures; calls that report errors outside errno (getaddrinfo)
//     put their own text there.
//   * "Would block" (EAGAIN / EWOULDBLOCK) is never reported as a NetError by the APIs that
//     document a would-block status (Syscalls::send, ChunkedSender::send, recv_some).
#pragma once

#include <expected>
#include <string>
#include <string_view>

namespace ackstall::net {

struct NetError {
  std::string_view call;
  int code = 0;
  std::string detail;

  // "sendmsg: Connection reset by peer" (or "getaddrinfo: Name or service not known").
  std::string message() const;

  friend bool operator==(const NetError&, const NetError&) = default;
};

template <class T>
using NetResult = std::expected<T, NetError>;

}  // namespace ackstall::net
