// The Winsock SocketOps: the only place the sender and probe meet Winsock headers (besides the
// other files of src/net/win/). Mirrors src/net/posix/socket_ops_posix.cc call for call; the
// differences are documented where they occur.
#include "winsock.h"  // first: the Winsock headers in their required order

#include <algorithm>
#include <array>
#include <cassert>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "ackstall/net/socket_ops.h"
#include "../same_address.h"

// ws2ipdef.h spells it TCP_MAXSEG = 4 in newer SDKs; undocumented, fails on Windows 7
// (docs/STACKS.md §1). MinGW-w64 10 does not define it.
#ifndef TCP_MAXSEG
#define TCP_MAXSEG 4
#endif
// ws2def.h (Vista SP1+); not in MinGW-w64 10's headers.
#ifndef SIO_IDEAL_SEND_BACKLOG_QUERY
#define SIO_IDEAL_SEND_BACKLOG_QUERY _IOR('t', 123, ULONG)
#endif

namespace ackstall::net {
namespace {

using win::os_error;

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
    case SocketOption::receive_buffer:
      return {SOL_SOCKET, SO_RCVBUF, "getsockopt(SO_RCVBUF)", "setsockopt(SO_RCVBUF)"};
    case SocketOption::socket_error:
      return {SOL_SOCKET, SO_ERROR, "getsockopt(SO_ERROR)", "setsockopt(SO_ERROR)"};
    // Linux only: EOPNOTSUPP here. tcp_quickack is set by ioctl (set_option below).
    case SocketOption::send_buffer_force:
      return {-1, -1, "getsockopt(SO_SNDBUFFORCE)", "setsockopt(SO_SNDBUFFORCE)"};
    case SocketOption::tcp_quickack:
      return {-1, -1, "getsockopt(TCP_QUICKACK)", "setsockopt(TCP_QUICKACK)"};
    case SocketOption::tx_ack_timestamps:
      return {-1, -1, "getsockopt(SO_TIMESTAMPING)", "setsockopt(SO_TIMESTAMPING)"};
  }
  return {-1, -1, "getsockopt", "setsockopt"};
}

SHORT to_poll_events(PollEvents e) noexcept {
  SHORT out = 0;
  if (has(e, PollEvents::in)) out |= POLLRDNORM;
  if (has(e, PollEvents::out)) out |= POLLWRNORM;
  return out;
}

PollEvents from_poll_events(SHORT revents) noexcept {
  PollEvents out = PollEvents::none;
  if ((revents & POLLRDNORM) != 0) out = out | PollEvents::in;
  if ((revents & POLLWRNORM) != 0) out = out | PollEvents::out;
  if ((revents & POLLERR) != 0) out = out | PollEvents::error;
  if ((revents & POLLHUP) != 0) out = out | PollEvents::hangup;
  if ((revents & POLLNVAL) != 0) out = out | PollEvents::invalid;
  return out;
}

// set_quickack (receive_tuning.h): Windows has no TCP_QUICKACK. Its closest knob is
// SIO_TCP_SET_ACK_FREQUENCY (mstcpip.h, Windows 8 and later: "the number of segments received
// before an ACK is sent"; Microsoft Learn, "SIO_TCP_SET_ACK_FREQUENCY control code"): on = 1
// (ACK every segment), off = 2, Windows' own default (ACK every second segment, else after the
// delayed-ACK timer, docs/STACKS.md §1). Where the ioctl is missing (Wine answers
// WSAEOPNOTSUPP, older Windows WSAEINVAL) the error is returned, named after the ioctl.
Result<void> set_ack_frequency(NativeSocket s, bool quickack) {
  int frequency = quickack ? 1 : 2;
  DWORD returned = 0;
  if (::WSAIoctl(static_cast<SOCKET>(s), SIO_TCP_SET_ACK_FREQUENCY, &frequency, sizeof frequency,
                 nullptr, 0, &returned, nullptr, nullptr) != 0) {
    return os_error("WSAIoctl(SIO_TCP_SET_ACK_FREQUENCY)");
  }
  return {};
}

std::string narrow(const wchar_t* w) {
  if (w == nullptr) return {};
  const int n = ::WideCharToMultiByte(CP_UTF8, 0, w, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return {};
  std::string out(static_cast<std::size_t>(n - 1), '\0');
  ::WideCharToMultiByte(CP_UTF8, 0, w, -1, out.data(), n, nullptr, nullptr);
  return out;
}

class WinSocketOps final : public SocketOps {
 public:
  WinSocketOps() { win::ensure_winsock(); }

  // One WSASend of the slices as WSABUFs. WSABUF.len is a ULONG: a slice longer than 4 GiB - 1
  // is offered in part, and the batch stops there (a legal short write). Winsock has no
  // MSG_DONTWAIT: dont_wait on a blocking socket switches FIONBIO on for this one call. No
  // MSG_MORE either (ignored; Windows has no TCP_CORK).
  Result<std::size_t> send(NativeSocket s, std::span<const core::ByteSlice> slices,
                              SendFlags flags) override {
    assert(slices.size() <= kMaxSlicesPerCall);
    std::array<WSABUF, kMaxSlicesPerCall> bufs;
    const std::size_t n = std::min(slices.size(), kMaxSlicesPerCall);
    std::size_t used = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = std::min<std::size_t>(slices[i].size, ULONG_MAX);
      bufs[used].buf = static_cast<char*>(const_cast<void*>(slices[i].data));  // WSABUF not const
      bufs[used].len = static_cast<ULONG>(len);
      ++used;
      if (len != slices[i].size) break;
    }
    const bool toggle = has(flags, SendFlags::dont_wait) && !win::registered_nonblocking(s);
    if (toggle) {
      u_long on = 1;
      if (::ioctlsocket(s, FIONBIO, &on) != 0) return os_error("ioctlsocket(FIONBIO)");
    }
    DWORD sent = 0;
    const int r = ::WSASend(s, bufs.data(), static_cast<DWORD>(used), &sent, 0, nullptr, nullptr);
    const int err = r == 0 ? 0 : ::WSAGetLastError();
    if (toggle) {
      u_long off = 0;
      ::ioctlsocket(s, FIONBIO, &off);
    }
    if (r != 0) return os_error("WSASend", err);
    return static_cast<std::size_t>(sent);
  }

  Result<void> wait_writable(NativeSocket s, int timeout_ms) override {
    WSAPOLLFD p{};
    p.fd = s;
    p.events = POLLWRNORM;
    const int r = ::WSAPoll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);
    if (r == SOCKET_ERROR) return os_error("WSAPoll");
    if (r == 0) return core::os_failure("WSAPoll", ETIMEDOUT);
    if ((p.revents & POLLNVAL) != 0) return core::os_failure("WSAPoll", EBADF);
    return {};  // POLLWRNORM, POLLERR or POLLHUP: the next send reports which
  }

  Result<int> get_option(NativeSocket s, SocketOption opt) override {
    const OptionName o = option_name(opt);
    if (o.level < 0) return core::os_failure(o.get_call, EOPNOTSUPP);
    int value = 0;
    int len = sizeof value;
    if (::getsockopt(s, o.level, o.name, reinterpret_cast<char*>(&value), &len) != 0) {
      return os_error(o.get_call);
    }
    return value;
  }

  Result<void> set_option(NativeSocket s, SocketOption opt, int value) override {
    if (opt == SocketOption::tcp_quickack) return set_ack_frequency(s, value != 0);
    const OptionName o = option_name(opt);
    if (o.level < 0) return core::os_failure(o.set_call, EOPNOTSUPP);
    if (::setsockopt(s, o.level, o.name, reinterpret_cast<const char*>(&value), sizeof value) !=
        0) {
      return os_error(o.set_call);
    }
    return {};
  }

  // One recv; a buffer over INT_MAX bytes is offered in part.
  Result<std::size_t> recv(NativeSocket s, std::span<std::byte> into) override {
    const int want = static_cast<int>(std::min<std::size_t>(into.size(), INT_MAX));
    const int n = ::recv(s, reinterpret_cast<char*>(into.data()), want, 0);
    if (n == SOCKET_ERROR) return os_error("recv");
    return static_cast<std::size_t>(n);
  }

  // One WSAPoll. Winsock has no MSG_ERRQUEUE (read_error_queue: the default EOPNOTSUPP).
  Result<PollEvents> poll(NativeSocket s, PollEvents want, int timeout_ms) override {
    WSAPOLLFD p{};
    p.fd = s;
    p.events = to_poll_events(want);
    const int r = ::WSAPoll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);
    if (r == SOCKET_ERROR) return os_error("WSAPoll");
    return from_poll_events(r == 0 ? SHORT{0} : p.revents);
  }

  // From the registry of modes the library set (winsock.h): Winsock cannot be asked.
  Result<bool> is_nonblocking(NativeSocket s) override {
    return win::registered_nonblocking(s);
  }

  // SIO_TCP_INFO version 0 (Windows 10 1703+). Wine does not implement it (docs/BENCHMARKS.md,
  // what Wine answers): the probe then falls back to the interface MTU, the seed's way.
  Result<TcpInfo> tcp_info(NativeSocket s) override {
    DWORD version = 0;
    TCP_INFO_v0 info{};
    DWORD bytes = 0;
    if (::WSAIoctl(s, SIO_TCP_INFO, &version, sizeof version, &info, sizeof info, &bytes, nullptr,
                   nullptr) != 0) {
      return os_error("WSAIoctl(SIO_TCP_INFO)");
    }
    if (bytes < sizeof info) {
      return core::os_failure("WSAIoctl(SIO_TCP_INFO)", EINVAL, "short TCP_INFO_v0");
    }
    TcpInfo out;
    out.snd_mss = static_cast<std::int64_t>(info.Mss);
    out.timestamps = info.TimestampsEnabled != 0;
    out.in_flight = static_cast<std::int64_t>(info.BytesInFlight);
    out.snd_wnd = static_cast<std::int64_t>(info.SndWnd);
    return out;
  }

  // The adapter (GetAdaptersAddresses) with a unicast address equal to the socket's local
  // address, and its IPv4/IPv6 MTU. Windows reports the loopback pseudo-interface's MTU as
  // 0xFFFFFFFF ("unlimited"): returned as ENODEV so the probe falls back to 1500.
  Result<InterfaceMtu> interface_mtu(NativeSocket s) override {
    sockaddr_storage local{};
    int len = sizeof local;
    if (::getsockname(s, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
      return os_error("getsockname");
    }
    ULONG size = 16 * 1024;
    std::vector<unsigned char> buf;
    ULONG rc = ERROR_BUFFER_OVERFLOW;
    for (int attempt = 0; attempt < 4 && rc == ERROR_BUFFER_OVERFLOW; ++attempt) {
      buf.resize(size);
      rc = ::GetAdaptersAddresses(AF_UNSPEC,
                                  GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST |
                                      GAA_FLAG_SKIP_DNS_SERVER,
                                  nullptr, reinterpret_cast<IP_ADAPTER_ADDRESSES*>(buf.data()),
                                  &size);
    }
    if (rc != NO_ERROR) {
      return core::os_failure("GetAdaptersAddresses", ENODEV,
                              "GetAdaptersAddresses failed: " + std::to_string(rc));
    }
    for (auto* a = reinterpret_cast<const IP_ADAPTER_ADDRESSES*>(buf.data()); a != nullptr;
         a = a->Next) {
      for (auto* u = a->FirstUnicastAddress; u != nullptr; u = u->Next) {
        if (!detail::same_address(local, u->Address.lpSockaddr)) continue;
        std::string name = narrow(a->FriendlyName);
        if (name.empty()) name = a->AdapterName != nullptr ? a->AdapterName : "?";
        if (a->Mtu == 0xFFFFFFFFul) {
          return core::os_failure("GetAdaptersAddresses", ENODEV,
                                  name + " reports no MTU (0xFFFFFFFF)");
        }
        return InterfaceMtu{std::move(name), static_cast<std::int64_t>(a->Mtu)};
      }
    }
    return core::os_failure("GetAdaptersAddresses", ENODEV,
                            "no adapter owns the socket's local address");
  }

  Result<SocketKind> socket_kind(NativeSocket s) override {
    int type = 0;
    int len = sizeof type;
    if (::getsockopt(s, SOL_SOCKET, SO_TYPE, reinterpret_cast<char*>(&type), &len) != 0) {
      return os_error("getsockopt(SO_TYPE)");
    }
    sockaddr_storage local{};
    int alen = sizeof local;
    if (::getsockname(s, reinterpret_cast<sockaddr*>(&local), &alen) != 0) {
      return os_error("getsockname");
    }
    return SocketKind{type == SOCK_STREAM,
                      local.ss_family == AF_INET || local.ss_family == AF_INET6};
  }

  // The ideal send backlog (ISB): how much Windows wants queued for the connection to run at
  // its current rate. Wine answers a constant, not a path estimate (docs/BENCHMARKS.md).
  Result<std::int64_t> ideal_send_backlog(NativeSocket s) override {
    ULONG isb = 0;
    DWORD bytes = 0;
    if (::WSAIoctl(s, SIO_IDEAL_SEND_BACKLOG_QUERY, nullptr, 0, &isb, sizeof isb, &bytes, nullptr,
                   nullptr) != 0) {
      return os_error("WSAIoctl(SIO_IDEAL_SEND_BACKLOG_QUERY)");
    }
    return static_cast<std::int64_t>(isb);
  }

  // Windows reports the SO_SNDBUF quota itself. So does Wine (it undoes Linux's doubling:
  // docs/BENCHMARKS.md, what Wine answers), so no halving anywhere on this platform.
  bool send_buffer_reported_doubled() const noexcept override { return false; }
};

}  // namespace

SocketOps& system_socket_ops() {
  static WinSocketOps ops;
  return ops;
}

}  // namespace ackstall::net
