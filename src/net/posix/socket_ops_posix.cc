// The POSIX SocketOps: the only place the sender and probe meet OS socket headers.
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cassert>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "ackstall/net/socket_ops.h"
#include "error_queue.h"
#include "tcp_info_linux.h"
#include "os_error.h"
#include "../same_address.h"

namespace ackstall::net {
namespace {

static_assert(kMaxSlicesPerCall <= IOV_MAX, "one sendmsg carries at most IOV_MAX iovecs");

#if !defined(MSG_NOSIGNAL)
#define MSG_NOSIGNAL 0  // BSD/macOS: SO_NOSIGPIPE would be set at socket creation instead
#endif
#if !defined(MSG_MORE)
#define MSG_MORE 0
#endif

using posix::os_error;

struct OptionName {
  int level;
  int name;
  std::string_view get_call;
  std::string_view set_call;
};

OptionName option_name(SocketOption opt) {
  switch (opt) {
    case SocketOption::send_buffer:
      return {SOL_SOCKET, SO_SNDBUF, "getsockopt(SO_SNDBUF)", "setsockopt(SO_SNDBUF)"};
    case SocketOption::tcp_maxseg:
      return {IPPROTO_TCP, TCP_MAXSEG, "getsockopt(TCP_MAXSEG)", "setsockopt(TCP_MAXSEG)"};
    case SocketOption::tcp_nodelay:
      return {IPPROTO_TCP, TCP_NODELAY, "getsockopt(TCP_NODELAY)", "setsockopt(TCP_NODELAY)"};
    case SocketOption::send_buffer_force:
#if defined(SO_SNDBUFFORCE)
      return {SOL_SOCKET, SO_SNDBUFFORCE, "getsockopt(SO_SNDBUFFORCE)",
              "setsockopt(SO_SNDBUFFORCE)"};
#else
      return {-1, -1, "getsockopt(SO_SNDBUFFORCE)", "setsockopt(SO_SNDBUFFORCE)"};
#endif
    case SocketOption::receive_buffer:
      return {SOL_SOCKET, SO_RCVBUF, "getsockopt(SO_RCVBUF)", "setsockopt(SO_RCVBUF)"};
    case SocketOption::socket_error:
      return {SOL_SOCKET, SO_ERROR, "getsockopt(SO_ERROR)", "setsockopt(SO_ERROR)"};
    case SocketOption::tcp_quickack:
#if defined(TCP_QUICKACK)
      return {IPPROTO_TCP, TCP_QUICKACK, "getsockopt(TCP_QUICKACK)", "setsockopt(TCP_QUICKACK)"};
#else
      return {-1, -1, "getsockopt(TCP_QUICKACK)", "setsockopt(TCP_QUICKACK)"};
#endif
    case SocketOption::tx_ack_timestamps:
#if defined(SO_TIMESTAMPING)
      return {SOL_SOCKET, SO_TIMESTAMPING, "getsockopt(SO_TIMESTAMPING)",
              "setsockopt(SO_TIMESTAMPING)"};
#else
      return {-1, -1, "getsockopt(SO_TIMESTAMPING)", "setsockopt(SO_TIMESTAMPING)"};
#endif
  }
  return {-1, -1, "getsockopt", "setsockopt"};
}

short to_poll_events(PollEvents e) noexcept {
  short out = 0;
  if (has(e, PollEvents::in)) out |= POLLIN;
  if (has(e, PollEvents::out)) out |= POLLOUT;
  return out;
}

PollEvents from_poll_events(short revents) noexcept {
  PollEvents out = PollEvents::none;
  if ((revents & POLLIN) != 0) out = out | PollEvents::in;
  if ((revents & POLLOUT) != 0) out = out | PollEvents::out;
  if ((revents & POLLERR) != 0) out = out | PollEvents::error;
  if ((revents & POLLHUP) != 0) out = out | PollEvents::hangup;
  if ((revents & POLLNVAL) != 0) out = out | PollEvents::invalid;
  return out;
}

class PosixSocketOps final : public SocketOps {
 public:
  Result<std::size_t> send(NativeSocket s, std::span<const core::ByteSlice> slices,
                              SendFlags flags) override {
    assert(slices.size() <= kMaxSlicesPerCall);
    // ByteSlice -> iovec: here and nowhere else.
    std::array<iovec, kMaxSlicesPerCall> iov;
    const std::size_t n = std::min(slices.size(), kMaxSlicesPerCall);
    for (std::size_t i = 0; i < n; ++i) {
      iov[i].iov_base = const_cast<void*>(slices[i].data);  // iovec is not const-correct
      iov[i].iov_len = slices[i].size;
    }
    msghdr msg{};
    msg.msg_iov = iov.data();
    msg.msg_iovlen = n;
    int os_flags = MSG_NOSIGNAL;
    if (has(flags, SendFlags::dont_wait)) os_flags |= MSG_DONTWAIT;
    if (has(flags, SendFlags::more)) os_flags |= MSG_MORE;
    const ssize_t r = ::sendmsg(s, &msg, os_flags);
    if (r < 0) return os_error("sendmsg");
    return static_cast<std::size_t>(r);
  }

  Result<void> wait_writable(NativeSocket s, int timeout_ms) override {
    pollfd p{s, POLLOUT, 0};
    const int r = ::poll(&p, 1, timeout_ms);
    if (r < 0) return os_error("poll");
    if (r == 0) return os_error("poll", ETIMEDOUT);
    if ((p.revents & POLLNVAL) != 0) return os_error("poll", EBADF);
    return {};  // POLLOUT, POLLERR or POLLHUP: the next send reports which
  }

  Result<int> get_option(NativeSocket s, SocketOption opt) override {
    const OptionName o = option_name(opt);
    if (o.level < 0) return os_error(o.get_call, EOPNOTSUPP);
    int value = 0;
    socklen_t len = sizeof value;
    if (::getsockopt(s, o.level, o.name, &value, &len) != 0) return os_error(o.get_call);
    return value;
  }

  Result<void> set_option(NativeSocket s, SocketOption opt, int value) override {
    const OptionName o = option_name(opt);
    if (o.level < 0) return os_error(o.set_call, EOPNOTSUPP);
    if (opt == SocketOption::tx_ack_timestamps && value != 0) {
      value = static_cast<int>(posix::tx_ack_timestamping_flags());
    }
    if (::setsockopt(s, o.level, o.name, &value, sizeof value) != 0) return os_error(o.set_call);
    return {};
  }

  Result<std::size_t> recv(NativeSocket s, std::span<std::byte> into) override {
    const ssize_t n = ::recv(s, into.data(), into.size(), 0);
    if (n < 0) return os_error("recv");
    return static_cast<std::size_t>(n);
  }

  Result<PollEvents> poll(NativeSocket s, PollEvents want, int timeout_ms) override {
    pollfd p{s, to_poll_events(want), 0};
    const int r = ::poll(&p, 1, timeout_ms);
    if (r < 0) return os_error("poll");
    return from_poll_events(r == 0 ? 0 : p.revents);
  }

  Result<ErrorQueueEntry> read_error_queue(NativeSocket s) override {
    return posix::read_error_queue(s);
  }

  Result<bool> is_nonblocking(NativeSocket s) override {
    const int fl = ::fcntl(s, F_GETFL);
    if (fl < 0) return os_error("fcntl(F_GETFL)");
    return (fl & O_NONBLOCK) != 0;
  }

  Result<TcpInfo> tcp_info(NativeSocket s) override {
#if defined(__linux__)
    TcpInfo info;
    if (posix::read_tcp_info(s, info) != 0) return os_error("getsockopt(TCP_INFO)");
    return info;
#else
    (void)s;
    return os_error("getsockopt(TCP_INFO)", ENOPROTOOPT);
#endif
  }

  Result<InterfaceMtu> interface_mtu(NativeSocket s) override {
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (::getsockname(s, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
      return os_error("getsockname");
    }
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return os_error("getifaddrs");
    const std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> owner(list, ::freeifaddrs);
    for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
      if (!detail::same_address(local, i->ifa_addr)) continue;
      ifreq req{};
      std::strncpy(req.ifr_name, i->ifa_name, sizeof req.ifr_name - 1);
      if (::ioctl(s, SIOCGIFMTU, &req) != 0) return os_error("ioctl(SIOCGIFMTU)");
      return InterfaceMtu{i->ifa_name, req.ifr_mtu};
    }
    return core::os_failure("getifaddrs", ENODEV, "no interface owns the socket's local address");
  }

  Result<SocketKind> socket_kind(NativeSocket s) override {
    int type = 0;
    socklen_t len = sizeof type;
    if (::getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &len) != 0) {
      return os_error("getsockopt(SO_TYPE)");
    }
    sockaddr_storage local{};
    socklen_t alen = sizeof local;
    if (::getsockname(s, reinterpret_cast<sockaddr*>(&local), &alen) != 0) {
      return os_error("getsockname");
    }
    return SocketKind{type == SOCK_STREAM,
                      local.ss_family == AF_INET || local.ss_family == AF_INET6};
  }

  bool send_buffer_reported_doubled() const noexcept override {
#if defined(__linux__)
    return true;  // socket(7): "The kernel doubles this value ... returned by getsockopt"
#else
    return false;
#endif
  }
};

}  // namespace

SocketOps& system_socket_ops() {
  static PosixSocketOps ops;
  return ops;
}

}  // namespace ackstall::net
