// Winsock connection setup: socket, connect (with timeout), listen, accept. Mirrors
// src/net/posix/tcp_socket_posix.cc; "close-on-exec" is WSA_FLAG_NO_HANDLE_INHERIT here.
#include "winsock.h"  // first: the Winsock headers in their required order

#include <cerrno>
#include <memory>

#include "../eintr.h"
#include "ackstall/net/tcp_socket.h"

namespace ackstall::net {
namespace {

using win::os_error;

Result<std::string> format_address(const sockaddr_storage& a) {
  char host[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    ::inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in.sin_port));
  }
  if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {  // IPv4 on a dual-stack socket: shown as IPv4
      ::inet_ntop(AF_INET, &in6.sin6_addr.s6_addr[12], host, sizeof host);
      return std::string(host) + ":" + std::to_string(ntohs(in6.sin6_port));
    }
    ::inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6.sin6_port));
  }
  return core::os_failure("getsockname", EAFNOSUPPORT);
}

using AddrInfoPtr = std::unique_ptr<addrinfo, void (*)(addrinfo*)>;

Result<AddrInfoPtr> resolve(const Endpoint& e, bool passive) {
  win::ensure_winsock();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  hints.ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(e.port);
  const int rc = ::getaddrinfo(e.host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0) {
    return core::os_failure("getaddrinfo", win::errno_from_wsa(rc), gai_strerrorA(rc));
  }
  return AddrInfoPtr(list, ::freeaddrinfo);
}

Result<TcpSocket> new_socket(const addrinfo& ai) {
  const SOCKET s = ::WSASocketW(ai.ai_family, ai.ai_socktype, ai.ai_protocol, nullptr, 0,
                                WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET) return os_error("socket");
  return TcpSocket(static_cast<NativeSocket>(s));
}

// One nonblocking connect, waited for with WSAPoll; the socket is left in blocking mode.
Result<TcpSocket> connect_one(const addrinfo& ai, int timeout_ms) {
  auto sock = new_socket(ai);
  if (!sock) return sock;
  if (auto r = win::set_mode_nonblocking(sock->native(), true); !r) {
    return tl::unexpected(r.error());
  }
  if (::connect(sock->native(), ai.ai_addr, static_cast<int>(ai.ai_addrlen)) != 0) {
    if (::WSAGetLastError() != WSAEWOULDBLOCK) return os_error("connect");
    WSAPOLLFD p{};
    p.fd = sock->native();
    p.events = POLLWRNORM;
    const int r = ::WSAPoll(&p, 1, timeout_ms);
    if (r == SOCKET_ERROR) return os_error("WSAPoll");
    if (r == 0) return core::os_failure("connect", ETIMEDOUT);
    int err = 0;
    int len = sizeof err;
    if (::getsockopt(sock->native(), SOL_SOCKET, SO_ERROR, reinterpret_cast<char*>(&err), &len) !=
        0) {
      return os_error("getsockopt(SO_ERROR)");
    }
    if (err != 0) return os_error("connect", err);
    // WSAPoll reports a refused connect as POLLHUP|POLLERR with SO_ERROR sometimes still 0.
    if ((p.revents & (POLLERR | POLLHUP)) != 0 && (p.revents & POLLWRNORM) == 0) {
      return core::os_failure("connect", ECONNREFUSED);
    }
  }
  if (auto r = win::set_mode_nonblocking(sock->native(), false); !r) {
    return tl::unexpected(r.error());
  }
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
  if (!valid()) return;
  const NativeSocket s = release();
  win::forget_socket(s);
  ::closesocket(s);
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
  auto sock = new_socket(ai);
  if (!sock) return tl::unexpected(sock.error());
  // Not SO_REUSEADDR: on Windows it lets a second socket steal a bound port.
  const BOOL one = TRUE;
  if (::setsockopt(sock->native(), SOL_SOCKET, SO_EXCLUSIVEADDRUSE,
                   reinterpret_cast<const char*>(&one), sizeof one) != 0) {
    return os_error("setsockopt(SO_EXCLUSIVEADDRUSE)");
  }
  const DWORD off = 0;  // "::" takes IPv4 too (Windows' default is IPv6 only)
  if (ai.ai_family == AF_INET6 && ::setsockopt(sock->native(), IPPROTO_IPV6, IPV6_V6ONLY,
                                               reinterpret_cast<const char*>(&off), sizeof off) != 0) {
    return os_error("setsockopt(IPV6_V6ONLY)");
  }
  if (::bind(sock->native(), ai.ai_addr, static_cast<int>(ai.ai_addrlen)) != 0) {
    return os_error("bind");
  }
  if (::listen(sock->native(), backlog) != 0) return os_error("listen");
  sockaddr_storage bound{};
  int len = sizeof bound;
  if (::getsockname(sock->native(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
    return os_error("getsockname");
  }
  const std::uint16_t port =
      bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6&>(bound).sin6_port)
                                  : ntohs(reinterpret_cast<const sockaddr_in&>(bound).sin_port);
  return Listener{std::move(*sock), port};
}

Result<TcpSocket> accept_tcp(const TcpSocket& listener) {
  return detail::retry_on_eintr([&]() -> Result<TcpSocket> {
    const SOCKET s = ::accept(listener.native(), nullptr, nullptr);
    if (s == INVALID_SOCKET) return os_error("accept");
    // An accepted socket inherits the listener's mode; the library promises blocking mode.
    if (win::registered_nonblocking(listener.native())) {
      if (auto r = win::set_mode_nonblocking(s, false); !r) {
        ::closesocket(s);
        return tl::unexpected(r.error());
      }
    }
    return TcpSocket(static_cast<NativeSocket>(s));
  });
}

Result<void> set_nonblocking(const TcpSocket& s, bool on) {
  return win::set_mode_nonblocking(s.native(), on);
}

Result<void> shutdown_send(const TcpSocket& s) {
  if (::shutdown(s.native(), SD_SEND) != 0) return os_error("shutdown");
  return {};
}

Result<std::string> local_address(const TcpSocket& s) {
  sockaddr_storage a{};
  int len = sizeof a;
  if (::getsockname(s.native(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return os_error("getsockname");
  }
  return format_address(a);
}

Result<std::string> peer_address(const TcpSocket& s) {
  sockaddr_storage a{};
  int len = sizeof a;
  if (::getpeername(s.native(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return os_error("getpeername");
  }
  return format_address(a);
}

}  // namespace ackstall::net
