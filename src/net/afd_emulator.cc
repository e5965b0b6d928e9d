// AfdSocketOps (afd_emulator.h): completions from SO_TIMESTAMPING TX_ACK (docs/STACKS.md §7),
// read through the SocketOps seam — SocketOption::tx_ack_timestamps, read_error_queue, poll,
// SO_ERROR — and Syscalls (EINTR retried there). Built on Linux only (elsewhere
// afd_emulator_stub.cc): the seam answers those calls only there.
#include <algorithm>
#include <cerrno>
#include <chrono>

#include "ackstall/net/afd_emulator.h"

namespace ackstall::net {
namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Result<std::unique_ptr<AfdSocketOps>> AfdSocketOps::attach(SocketOps& inner, NativeSocket s,
                                                              AfdOptions options) {
  if (options.quota <= 0) return core::os_failure("afd quota", EINVAL);
  Syscalls calls(inner);
  // A large kernel buffer so the kernel never blocks before the emulated quota does.
  if (!calls.set_option(s, SocketOption::send_buffer_force, options.kernel_sndbuf)) {
    if (auto r = calls.set_option(s, SocketOption::send_buffer, options.kernel_sndbuf); !r) {
      return tl::unexpected(std::move(r.error()));
    }
  }
  // After connect: OPT_ID numbers bytes from the current write_seq (EINVAL before connect).
  if (auto r = calls.set_option(s, SocketOption::tx_ack_timestamps, 1); !r) {
    return tl::unexpected(std::move(r.error()));
  }
  return std::unique_ptr<AfdSocketOps>(new AfdSocketOps(inner, s, options));
}

Result<void> AfdSocketOps::drain_completions() {
  for (;;) {
    auto entry = calls_.read_error_queue(socket_);
    if (!entry) return tl::unexpected(std::move(entry.error()));
    if (!*entry) return {};            // the queue is empty
    if (!(*entry)->tx_ack) continue;   // not a TX_ACK report (an ICMP error, ...)
    ++stats_.completions;
    // Cumulative: the kernel reports only the newest of merged sends, and an older id after a
    // newer one acknowledges nothing new (unwrap_ack_id).
    quota_.acknowledge(unwrap_ack_id((*entry)->id, quota_.acked()));
  }
}

template <class Done>
Result<void> AfdSocketOps::wait_until(Done done, int timeout_ms) {
  if (auto r = drain_completions(); !r) return r;
  if (done()) return {};
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  Result<void> result;
  for (;;) {
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        result = core::os_failure("poll", ETIMEDOUT);
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    // Nothing asked for: POLLERR (an error-queue message) and POLLHUP are always reported.
    auto events = calls_.poll(socket_, PollEvents::none, wait_ms);
    if (!events) {
      result = tl::unexpected(std::move(events.error()));
      break;
    }
    if (*events == PollEvents::none) continue;  // the deadline check above ends the loop
    if (auto r = drain_completions(); !r) {
      result = r;
      break;
    }
    if (done()) break;
    // POLLERR without a timestamp: a real socket error; POLLHUP: the peer is gone.
    if (auto so_error = calls_.get_option(socket_, SocketOption::socket_error);
        so_error && *so_error != 0) {
      result = core::os_failure("send", *so_error);
      break;
    }
    if (has(*events, PollEvents::invalid)) {
      result = core::os_failure("send", EBADF);
      break;
    }
    if (has(*events, PollEvents::hangup)) {
      result = core::os_failure("send", EPIPE);
      break;
    }
  }
  const auto waited = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
  ++stats_.waits;
  stats_.waited += waited;
  stats_.longest_wait = std::max(stats_.longest_wait, waited);
  if (waited > options_.stall_threshold) ++stats_.stalls;
  return result;
}

Result<std::size_t> AfdSocketOps::send(NativeSocket s, std::span<const core::ByteSlice> slices,
                                          SendFlags flags) {
  if (!quota_.may_send()) {
    if (auto r = drain_completions(); !r) return tl::unexpected(std::move(r.error()));
    if (!quota_.may_send()) {
      ++stats_.would_blocks;
      return core::os_failure("sendmsg", EAGAIN);
    }
  }
  // Raw (no retry): an EINTR goes back to the caller's Syscalls, which repeats this send.
  auto r = calls_.ops().send(s, slices, flags);
  if (r && *r > 0) {
    quota_.charge(*r);
    ++stats_.sends;
  }
  return r;
}

Result<void> AfdSocketOps::wait_writable(NativeSocket, int timeout_ms) {
  return wait_until([this] { return quota_.may_send(); }, timeout_ms);
}

Result<void> AfdSocketOps::wait_all_acked(int timeout_ms) {
  return wait_until([this] { return quota_.acked() >= quota_.sent(); }, timeout_ms);
}

Result<int> AfdSocketOps::get_option(NativeSocket s, SocketOption opt) {
  if (opt == SocketOption::send_buffer) return static_cast<int>(quota_.quota());
  return calls_.ops().get_option(s, opt);
}

Result<void> AfdSocketOps::set_option(NativeSocket s, SocketOption opt, int value) {
  if (opt == SocketOption::send_buffer) {
    if (value <= 0) return core::os_failure("setsockopt(SO_SNDBUF)", EINVAL);
    quota_.set_quota(value);
    return {};
  }
  return calls_.ops().set_option(s, opt, value);
}

Result<bool> AfdSocketOps::is_nonblocking(NativeSocket s) { return calls_.ops().is_nonblocking(s); }
Result<TcpInfo> AfdSocketOps::tcp_info(NativeSocket s) { return calls_.ops().tcp_info(s); }
Result<InterfaceMtu> AfdSocketOps::interface_mtu(NativeSocket s) {
  return calls_.ops().interface_mtu(s);
}
Result<SocketKind> AfdSocketOps::socket_kind(NativeSocket s) {
  return calls_.ops().socket_kind(s);
}
Result<std::size_t> AfdSocketOps::recv(NativeSocket s, std::span<std::byte> into) {
  return calls_.ops().recv(s, into);
}
Result<PollEvents> AfdSocketOps::poll(NativeSocket s, PollEvents want, int timeout_ms) {
  return calls_.ops().poll(s, want, timeout_ms);
}

}  // namespace ackstall::net
