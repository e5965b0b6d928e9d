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

namespace ackstall::net {
namespace {

static_assert(kMaxSlicesPerCall <= IOV_MAX, "one sendmsg carries at most IOV_MAX iovecs");

#if !defined(MSG_NOSIGNAL)
#define MSG_NOSIGNAL 0  // BSD/macOS: SO_NOSIGPIPE would be set at socket creation instead
#endif
#if !defined(MSG_MORE)
#define MSG_MORE 0
#endif

tl::unexpected<Error> os_error(std::string_view call) {
  return tl::unexpected(Error{call, errno, {}});
}

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
  }
  return {-1, -1, "getsockopt", "setsockopt"};
}

// Same address? IPv4-mapped IPv6 local addresses match the IPv4 interface address.
bool same_address(const sockaddr_storage& local, const sockaddr* ifa) {
  if (ifa == nullptr) return false;
  in_addr v4{};
  bool local_is_v4 = false;
  if (local.ss_family == AF_INET) {
    v4 = reinterpret_cast<const sockaddr_in&>(local).sin_addr;
    local_is_v4 = true;
  } else if (local.ss_family == AF_INET6) {
    const auto& a6 = reinterpret_cast<const sockaddr_in6&>(local).sin6_addr;
    static constexpr std::array<unsigned char, 12> kMapped = {0, 0, 0, 0, 0, 0,
                                                              0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(a6.s6_addr, kMapped.data(), kMapped.size()) == 0) {
      std::memcpy(&v4, a6.s6_addr + 12, sizeof v4);
      local_is_v4 = true;
    } else if (ifa->sa_family == AF_INET6) {
      const auto& i6 = reinterpret_cast<const sockaddr_in6*>(ifa)->sin6_addr;
      return std::memcmp(a6.s6_addr, i6.s6_addr, sizeof a6.s6_addr) == 0;
    }
  }
  if (local_is_v4 && ifa->sa_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(ifa)->sin_addr.s_addr == v4.s_addr;
  }
  return false;
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
    if (r == 0) return tl::unexpected(Error{"poll", ETIMEDOUT, {}});
    if ((p.revents & POLLNVAL) != 0) return tl::unexpected(Error{"poll", EBADF, {}});
    return {};  // POLLOUT, POLLERR or POLLHUP: the next send reports which
  }

  Result<int> get_option(NativeSocket s, SocketOption opt) override {
    const OptionName o = option_name(opt);
    int value = 0;
    socklen_t len = sizeof value;
    if (::getsockopt(s, o.level, o.name, &value, &len) != 0) return os_error(o.get_call);
    return value;
  }

  Result<void> set_option(NativeSocket s, SocketOption opt, int value) override {
    const OptionName o = option_name(opt);
    if (::setsockopt(s, o.level, o.name, &value, sizeof value) != 0) return os_error(o.set_call);
    return {};
  }

  Result<bool> is_nonblocking(NativeSocket s) override {
    const int fl = ::fcntl(s, F_GETFL);
    if (fl < 0) return os_error("fcntl(F_GETFL)");
    return (fl & O_NONBLOCK) != 0;
  }

  Result<TcpInfo> tcp_info(NativeSocket s) override {
#if defined(__linux__)
    struct tcp_info info {};
    socklen_t len = sizeof info;
    if (::getsockopt(s, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) {
      return os_error("getsockopt(TCP_INFO)");
    }
    return TcpInfo{static_cast<std::int64_t>(info.tcpi_snd_mss),
                   (info.tcpi_options & TCPI_OPT_TIMESTAMPS) != 0};
#else
    (void)s;
    return tl::unexpected(Error{"getsockopt(TCP_INFO)", ENOPROTOOPT, {}});
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
      if (!same_address(local, i->ifa_addr)) continue;
      ifreq req{};
      std::strncpy(req.ifr_name, i->ifa_name, sizeof req.ifr_name - 1);
      if (::ioctl(s, SIOCGIFMTU, &req) != 0) return os_error("ioctl(SIOCGIFMTU)");
      return InterfaceMtu{i->ifa_name, req.ifr_mtu};
    }
    return tl::unexpected(
        Error{"getifaddrs", ENODEV, "no interface owns the socket's local address"});
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
