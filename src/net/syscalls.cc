#include "ackstall/net/syscalls.h"

#include <cerrno>

#include "eintr.h"

namespace ackstall::net {
namespace {
// EAGAIN and EWOULDBLOCK may differ (they do not on Linux): both are "would block".
bool would_block(const Error& e) noexcept { return e.code == EAGAIN || e.code == EWOULDBLOCK; }
}  // namespace

std::string_view to_string(SocketOption opt) noexcept {
  switch (opt) {
    case SocketOption::send_buffer: return "SO_SNDBUF";
    case SocketOption::tcp_maxseg: return "TCP_MAXSEG";
    case SocketOption::tcp_nodelay: return "TCP_NODELAY";
    case SocketOption::send_buffer_force: return "SO_SNDBUFFORCE";
    case SocketOption::receive_buffer: return "SO_RCVBUF";
    case SocketOption::socket_error: return "SO_ERROR";
    case SocketOption::tcp_quickack: return "TCP_QUICKACK";
    case SocketOption::tx_ack_timestamps: return "SO_TIMESTAMPING";
  }
  return "?";
}

Result<SendOutcome> Syscalls::send(NativeSocket s, std::span<const core::ByteSlice> slices,
                                      SendFlags flags) {
  auto r = detail::retry_on_eintr([&] { return ops_->send(s, slices, flags); });
  if (r) return SendOutcome{*r, false};
  if (would_block(r.error())) return SendOutcome{0, true};
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

Result<RecvOutcome> Syscalls::recv(NativeSocket s, std::span<std::byte> into) {
  auto r = detail::retry_on_eintr([&] { return ops_->recv(s, into); });
  if (r) return RecvOutcome{*r, false, *r == 0 && !into.empty()};
  if (would_block(r.error())) return RecvOutcome{0, true, false};
  return tl::unexpected(std::move(r.error()));
}

Result<PollEvents> Syscalls::poll(NativeSocket s, PollEvents want, int timeout_ms) {
  return detail::retry_on_eintr_timed(timeout_ms,
                                      [&](int ms) { return ops_->poll(s, want, ms); });
}

Result<std::optional<ErrorQueueEntry>> Syscalls::read_error_queue(NativeSocket s) {
  auto r = detail::retry_on_eintr([&] { return ops_->read_error_queue(s); });
  if (r) return std::optional<ErrorQueueEntry>(*r);
  if (would_block(r.error())) return std::optional<ErrorQueueEntry>();
  return tl::unexpected(std::move(r.error()));
}

}  // namespace ackstall::net
