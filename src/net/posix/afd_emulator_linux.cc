// AfdSocketOps on Linux: completions from SO_TIMESTAMPING TX_ACK (docs/STACKS.md §7).
#include <time.h>  // struct timespec, before linux/errqueue.h

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "ackstall/net/afd_emulator.h"

namespace ackstall::net {
namespace {

using Clock = std::chrono::steady_clock;

tl::unexpected<Error> os_error(std::string_view call, int code = errno) {
  return tl::unexpected(Error{call, code, {}});
}

}  // namespace

Result<std::unique_ptr<AfdSocketOps>> AfdSocketOps::attach(SocketOps& inner, NativeSocket s,
                                                              AfdOptions options) {
  if (options.quota <= 0) return os_error("afd quota", EINVAL);
  // A large kernel buffer so the kernel never blocks before the emulated quota does.
  if (::setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &options.kernel_sndbuf,
                   sizeof options.kernel_sndbuf) != 0 &&
      ::setsockopt(s, SOL_SOCKET, SO_SNDBUF, &options.kernel_sndbuf,
                   sizeof options.kernel_sndbuf) != 0) {
    return os_error("setsockopt(SO_SNDBUF)");
  }
  // After connect: OPT_ID numbers bytes from the current write_seq (EINVAL before connect).
  const unsigned flags = SOF_TIMESTAMPING_TX_ACK | SOF_TIMESTAMPING_SOFTWARE |
                         SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;
  if (::setsockopt(s, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) != 0) {
    return os_error("setsockopt(SO_TIMESTAMPING)");
  }
  return std::unique_ptr<AfdSocketOps>(new AfdSocketOps(inner, s, options));
}

Result<void> AfdSocketOps::drain_completions() {
  for (;;) {
    alignas(cmsghdr) char control[512];
    msghdr msg{};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t r = ::recvmsg(socket_, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
    if (r < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
      if (errno == EINTR) continue;
      return os_error("recvmsg(MSG_ERRQUEUE)");
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      const bool recverr = (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                           (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
      if (!recverr) continue;
      sock_extended_err err{};
      std::memcpy(&err, CMSG_DATA(c), sizeof err);
      if (err.ee_errno != ENOMSG || err.ee_origin != SO_EE_ORIGIN_TIMESTAMPING ||
          err.ee_info != SCM_TSTAMP_ACK) {
        continue;
      }
      ++stats_.completions;
      quota_.acknowledge(unwrap_ack_id(err.ee_data, quota_.acked()));
    }
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
        result = os_error("poll", ETIMEDOUT);
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    pollfd p{socket_, 0, 0};  // POLLERR and POLLHUP are always reported
    const int n = ::poll(&p, 1, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      result = os_error("poll");
      break;
    }
    if (n == 0) continue;  // the deadline check above ends the loop
    if (auto r = drain_completions(); !r) {
      result = r;
      break;
    }
    if (done()) break;
    // POLLERR without a timestamp: a real socket error; POLLHUP: the peer is gone.
    int so_error = 0;
    socklen_t len = sizeof so_error;
    if (::getsockopt(socket_, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error != 0) {
      result = os_error("send", so_error);
      break;
    }
    if ((p.revents & (POLLHUP | POLLNVAL)) != 0) {
      result = os_error("send", (p.revents & POLLNVAL) != 0 ? EBADF : EPIPE);
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
    if (auto r = drain_completions(); !r) return tl::unexpected(r.error());
    if (!quota_.may_send()) {
      ++stats_.would_blocks;
      return os_error("sendmsg", EAGAIN);
    }
  }
  auto r = inner_->send(s, slices, flags);
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
  return inner_->get_option(s, opt);
}

Result<void> AfdSocketOps::set_option(NativeSocket s, SocketOption opt, int value) {
  if (opt == SocketOption::send_buffer) {
    if (value <= 0) return os_error("setsockopt(SO_SNDBUF)", EINVAL);
    quota_.set_quota(value);
    return {};
  }
  return inner_->set_option(s, opt, value);
}

Result<bool> AfdSocketOps::is_nonblocking(NativeSocket s) { return inner_->is_nonblocking(s); }
Result<TcpInfo> AfdSocketOps::tcp_info(NativeSocket s) { return inner_->tcp_info(s); }
Result<InterfaceMtu> AfdSocketOps::interface_mtu(NativeSocket s) {
  return inner_->interface_mtu(s);
}
Result<SocketKind> AfdSocketOps::socket_kind(NativeSocket s) { return inner_->socket_kind(s); }

}  // namespace ackstall::net
