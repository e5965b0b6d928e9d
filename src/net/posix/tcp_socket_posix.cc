// POSIX connection setup: socket, connect (with timeout), listen, accept (recv_some is
// platform-independent: src/net/tcp_socket.cc).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "../eintr.h"
#include "ackstall/net/tcp_socket.h"
#include "os_error.h"

namespace ackstall::net {
namespace {

using posix::os_error;

Result<void> set_flag_nonblocking(int s, bool on) {
  const int fl = ::fcntl(s, F_GETFL);
  if (fl < 0) return os_error("fcntl(F_GETFL)");
  const int want = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
  if (want != fl && ::fcntl(s, F_SETFL, want) != 0) return os_error("fcntl(F_SETFL)");
  return {};
}

Result<std::string> format_address(const sockaddr_storage& a) {
  char host[INET6_ADDRSTRLEN] = {};
  unsigned port = 0;
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    ::inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
    port = ntohs(in.sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    port = ntohs(in6.sin6_port);
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {  // IPv4 on a dual-stack socket: shown as IPv4
      ::inet_ntop(AF_INET, &in6.sin6_addr.s6_addr[12], host, sizeof host);
      return std::string(host) + ":" + std::to_string(port);
    }
    ::inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return os_error("getsockname", EAFNOSUPPORT);
}

using AddrInfoPtr = std::unique_ptr<addrinfo, void (*)(addrinfo*)>;

Result<AddrInfoPtr> resolve(const Endpoint& e, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(e.port);
  const int rc = ::getaddrinfo(e.host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0) {
    if (rc == EAI_SYSTEM) return os_error("getaddrinfo");
    return core::os_failure("getaddrinfo", 0, ::gai_strerror(rc));
  }
  return AddrInfoPtr(list, ::freeaddrinfo);
}

// One nonblocking connect, waited for with poll; the socket is left in blocking mode.
Result<TcpSocket> connect_one(const addrinfo& ai, int timeout_ms) {
  TcpSocket sock(::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                          ai.ai_protocol));
  if (!sock.valid()) return os_error("socket");
  if (::connect(sock.native(), ai.ai_addr, ai.ai_addrlen) != 0) {
    if (errno != EINPROGRESS && errno != EINTR) return os_error("connect");
    auto ready = detail::retry_on_eintr([&]() -> Result<int> {
      pollfd p{sock.native(), POLLOUT, 0};
      const int r = ::poll(&p, 1, timeout_ms);
      if (r < 0) return os_error("poll");
      return r;
    });
    if (!ready) return tl::unexpected(ready.error());
    if (*ready == 0) return os_error("connect", ETIMEDOUT);
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(sock.native(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
      return os_error("getsockopt(SO_ERROR)");
    }
    if (err != 0) return os_error("connect", err);
  }
  if (auto r = set_flag_nonblocking(sock.native(), false); !r) return tl::unexpected(r.error());
  return sock;
}

}  // namespace

TcpSocket& TcpSocket::operator=(TcpSocket&& other) noexcept {
  if (this != &other) {
    close();
    s_ = other.release();
  }
  return *this;
}

NativeSocket TcpSocket::release() noexcept {
  const NativeSocket s = s_;
  s_ = kInvalidSocket;
  return s;
}

void TcpSocket::close() noexcept {
  if (valid()) ::close(release());  // no EINTR retry: the descriptor is gone either way
}

Result<TcpSocket> connect_tcp(const Endpoint& to, std::chrono::milliseconds timeout) {
  auto list = resolve(to, false);
  if (!list) return tl::unexpected(list.error());
  Error last{"connect", EHOSTUNREACH, {}};
  for (const addrinfo* ai = list->get(); ai != nullptr; ai = ai->ai_next) {
    auto s = connect_one(*ai, static_cast<int>(timeout.count()));
    if (s) return s;
    last = s.error();
  }
  return tl::unexpected(last);
}

Result<Listener> listen_tcp(const Endpoint& at, int backlog) {
  // No host: every address, through one IPv6 socket that takes IPv4 too (IPV6_V6ONLY off);
  // IPv4 alone where the host has no IPv6.
  if (at.host.empty()) {
    auto dual = listen_tcp({"::", at.port}, backlog);
    if (dual || dual.error().code != EAFNOSUPPORT) return dual;
    return listen_tcp({"0.0.0.0", at.port}, backlog);
  }
  auto list = resolve(at, true);
  if (!list) return tl::unexpected(list.error());
  const addrinfo& ai = *list->get();
  TcpSocket sock(::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC, ai.ai_protocol));
  if (!sock.valid()) return os_error("socket");
  const int one = 1;
  if (::setsockopt(sock.native(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) {
    return os_error("setsockopt(SO_REUSEADDR)");
  }
  const int off = 0;  // "::" takes IPv4 too, whatever net.ipv6.bindv6only says
  if (ai.ai_family == AF_INET6 &&
      ::setsockopt(sock.native(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) != 0) {
    return os_error("setsockopt(IPV6_V6ONLY)");
  }
  if (::bind(sock.native(), ai.ai_addr, ai.ai_addrlen) != 0) return os_error("bind");
  if (::listen(sock.native(), backlog) != 0) return os_error("listen");
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(sock.native(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
    return os_error("getsockname");
  }
  const std::uint16_t port =
      bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6&>(bound).sin6_port)
                                  : ntohs(reinterpret_cast<const sockaddr_in&>(bound).sin_port);
  return Listener{std::move(sock), port};
}

Result<TcpSocket> accept_tcp(const TcpSocket& listener) {
  return detail::retry_on_eintr([&]() -> Result<TcpSocket> {
    const int s = ::accept4(listener.native(), nullptr, nullptr, SOCK_CLOEXEC);
    if (s < 0) return os_error("accept");
    return TcpSocket(s);
  });
}

Result<void> set_nonblocking(const TcpSocket& s, bool on) {
  return set_flag_nonblocking(s.native(), on);
}

Result<void> shutdown_send(const TcpSocket& s) {
  if (::shutdown(s.native(), SHUT_WR) != 0) return os_error("shutdown");
  return {};
}

Result<std::string> local_address(const TcpSocket& s) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(s.native(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return os_error("getsockname");
  }
  return format_address(a);
}

Result<std::string> peer_address(const TcpSocket& s) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(s.native(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return os_error("getpeername");
  }
  return format_address(a);
}

}  // namespace ackstall::net
