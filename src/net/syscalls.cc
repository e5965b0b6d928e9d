#include "ackstall/net/syscalls.h"

#include <cerrno>

#include "eintr.h"

namespace ackstall::net {

std::string_view to_string(SocketOption opt) noexcept {
  switch (opt) {
    case SocketOption::send_buffer: return "SO_SNDBUF";
    case SocketOption::tcp_maxseg: return "TCP_MAXSEG";
    case SocketOption::tcp_nodelay: return "TCP_NODELAY";
  }
  return "?";
}

Result<SendOutcome> Syscalls::send(NativeSocket s, std::span<const core::ByteSlice> slices,
                                      SendFlags flags) {
  auto r = detail::retry_on_eintr([&] { return ops_->send(s, slices, flags); });
  if (r) return SendOutcome{*r, false};
  // EAGAIN and EWOULDBLOCK may differ (they do not on Linux): both are "would block".
  if (r.error().code == EAGAIN || r.error().code == EWOULDBLOCK) return SendOutcome{0, true};
  return tl::unexpected(std::move(r.error()));
}

Result<void> Syscalls::wait_writable(NativeSocket s, int timeout_ms) {
  return detail::retry_on_eintr([&] { return ops_->wait_writable(s, timeout_ms); });
}

Result<int> Syscalls::get_option(NativeSocket s, SocketOption opt) {
  return detail::retry_on_eintr([&] { return ops_->get_option(s, opt); });
}

Result<void> Syscalls::set_option(NativeSocket s, SocketOption opt, int value) {
  return detail::retry_on_eintr([&] { return ops_->set_option(s, opt, value); });
}

Result<bool> Syscalls::is_nonblocking(NativeSocket s) {
  return detail::retry_on_eintr([&] { return ops_->is_nonblocking(s); });
}

Result<TcpInfo> Syscalls::tcp_info(NativeSocket s) {
  return detail::retry_on_eintr([&] { return ops_->tcp_info(s); });
}

Result<InterfaceMtu> Syscalls::interface_mtu(NativeSocket s) {
  return detail::retry_on_eintr([&] { return ops_->interface_mtu(s); });
}

Result<SocketKind> Syscalls::socket_kind(NativeSocket s) {
  return detail::retry_on_eintr([&] { return ops_->socket_kind(s); });
}

}  // namespace ackstall::net
