// The transmitter (transfer.h): connect, set up the send path, send, half-close, wait.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <istream>
#include <memory>
#include <thread>
#include <vector>

#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/endpoint.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/net/receive_tuning.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/ttcp/pattern.h"
#include "ackstall/ttcp/transfer.h"
#include "interval_clock.h"

namespace ackstall::ttcp {
namespace {

using detail::Clock;

// Connects, retrying while refused (the receiver may still be starting) until the deadline.
core::Result<net::TcpSocket> connect_retrying(const net::Endpoint& to, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto s = net::connect_tcp(to, std::max(left, std::chrono::milliseconds(1)));
    if (s || s.error().code != ECONNREFUSED || Clock::now() >= deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

core::Result<TransferResult> transmit(const Config& cfg, const Events& events) {
  if (!cfg.source_sink && !cfg.data_in) return core::fail("no input stream here: use -s");
  TransferResult res;
  const net::Endpoint target{cfg.host, cfg.port};
  const std::string where = net::to_string(target);
  auto sock = connect_retrying(target, cfg.connect_timeout_ms);
  if (!sock) return core::fail(fmt::format("connect to {}: {}", where, sock.error().message()));
  if (events.connected) events.connected(where);

  std::unique_ptr<net::AfdSocketOps> afd;
  net::SocketOps* ops = &net::system_socket_ops();
  if (cfg.afd_quota) {
    net::AfdOptions o;
    o.quota = *cfg.afd_quota;
    o.stall_threshold = cfg.stall_threshold;
    auto a = net::AfdSocketOps::attach(net::system_socket_ops(), sock->native(), o);
    if (!a) return core::fail("--emulate-afd: " + a.error().message());
    afd = std::move(*a);
    ops = afd.get();
  }
  // Over the emulated quota sends are charged whole, as on Windows: what `auto` reads.
  net::SenderOptions options = net::sender_options({cfg.chunk, cfg.sndbuf_rule});
  options.per_send_quota = afd != nullptr || net::kKernelChargesPerSend;
  // The emulated quota is the SO_SNDBUF Winsock would have had: known, as if set (cygwin-patch
  // reads it, core::SocketParams::sndbuf_set); -b sets it below.
  options.sndbuf_set = afd != nullptr;
  net::ChunkedSender sender(*ops, sock->native(), options);
  if (cfg.nodelay) {
    if (auto r = sender.set_option(net::SocketOption::tcp_nodelay, 1); !r) return tl::unexpected(r.error());
    if (events.nodelay) events.nodelay();
  }
  // -b: SO_SNDBUF; under --emulate-afd the quota is the send buffer Winsock would have had.
  if (cfg.sockbuf && !cfg.afd_quota) {
    if (auto r = sender.set_option(net::SocketOption::send_buffer, *cfg.sockbuf); !r) {
      return tl::unexpected(r.error());
    }
  }
  // SO_SNDBUF follows the ideal send backlog for `isb` (and `auto` on Windows): queried at most
  // once a second, as curl does, before a send; the policy re-chunks under it (chunked_sender.h).
  // The first reading is taken now, for the chunk line.
  if (auto r = sender.update_isb(); !r)
    return core::fail("ideal send backlog: " + r.error().message());
  res.isb = sender.isb_reading();
  auto policy = sender.policy();
  if (!policy) return tl::unexpected(policy.error());
  if (events.sending) {
    events.sending({policy->kind(), cfg.sndbuf_rule, policy->params().mss, policy->params().sndbuf,
                    policy->base_chunk(),
                    afd ? std::optional<std::int64_t>(afd->quota().quota()) : std::nullopt, res.isb,
                    core::policy_notice(policy->kind(), policy->params(), static_cast<std::size_t>(cfg.buflen))});
  }

  std::vector<std::byte> buf(static_cast<std::size_t>(cfg.buflen));
  if (cfg.source_sink && !cfg.verify) fill_pattern(buf, 0);  // ttcp -s: the same pattern each time
  // The next application send: a pattern buffer (-s), or up to buflen bytes of input (ttcp's
  // read(0, buf, buflen) loop; 0 at end of input).
  const auto next_buffer = [&](std::uint64_t offset) -> std::size_t {
    if (cfg.source_sink) {
      if (cfg.verify) fill_pattern(buf, offset);
      return buf.size();
    }
    cfg.data_in->read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    return static_cast<std::size_t>(cfg.data_in->gcount());
  };

  const bool by_time = cfg.seconds > 0;
  const auto t0 = Clock::now();
  const auto stop_at = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  detail::IntervalClock iv{cfg.interval, t0, &events.interval, cfg.stall_threshold};
  std::uint64_t sent = 0;
  // The counters into `res`, timed to now: at the end, or when the connection is lost.
  const auto finish = [&] {
    res.isb = sender.isb_reading();  // the last ideal-send-backlog reading (isb; auto on Windows)
    res.bytes = sent;
    res.seconds = detail::since(t0, Clock::now());
    iv.finish(res.seconds, sent);
    iv.fill(res);
    res.local = net::local_address(*sock).value_or("?");
    res.remote = where;
    if (afd) res.afd = afd->stats();
  };
  // The connection is gone (the receiver stopped, a reset): the transfer so far, and why.
  const auto lost = [&](std::uint64_t at, const core::Error& e) -> core::Result<TransferResult> {
    finish();
    res.lost = core::Error{{}, 0, fmt::format("connection to {} lost after {} bytes: {}", where, at, e.message())};
    return res;
  };
  for (std::int64_t n = 0;; ++n) {
    if ((res.interrupted = detail::interrupted(cfg.interrupt)) != 0) break;
    // -n bounds a -s run (default 2048) and, only when given, a run from input.
    if ((!by_time || cfg.nbuf_set) && (cfg.source_sink || cfg.nbuf_set) && n >= cfg.nbuf) break;
    if (by_time && Clock::now() >= stop_at) break;
    const std::size_t len = next_buffer(sent);
    if (len == 0) {
      if (cfg.data_in->bad()) return core::fail(fmt::format("reading the input failed after {} bytes", sent));
      break;  // end of input
    }
    std::size_t off = 0;
    const auto began = Clock::now();
    while (off < len) {
      const core::ByteSlice slice{buf.data() + off, len - off};
      auto r = sender.send(std::span(&slice, 1));
      if (!r) return lost(sent, r.error());
      off += r->bytes;
      sent += r->bytes;
    }
    ++res.calls;
    iv.call(began, Clock::now(), sent);
  }
  // Interrupted, the transfer ends here: what was sent so far, timed to now.
  if (afd && !res.interrupted) {
    if (auto r = afd->wait_all_acked(60000); !r) return lost(sent, r.error());
  }
  // Half-close and wait for the receiver's close: the clock stops when it has read everything.
  if (auto r = net::shutdown_send(*sock); !r) return tl::unexpected(r.error());
  for (auto waited = std::chrono::milliseconds(0); !res.interrupted;) {
    constexpr auto kSlice = std::chrono::milliseconds(100);
    if (waited >= std::chrono::seconds(60)) {
      return core::fail(fmt::format("{} did not close the connection within 60 s", where));
    }
    auto ready = net::wait_readable(*sock, static_cast<int>(kSlice.count()));
    if (!ready) return lost(sent, ready.error());
    if (!*ready) {
      waited += kSlice;
      res.interrupted = detail::interrupted(cfg.interrupt);
      continue;
    }
    std::byte sink[512];
    auto r = net::recv_some(*sock, sink);
    if (!r) return lost(sent, r.error());
    if (r->eof) break;
  }
  finish();
  net::Syscalls calls(net::system_socket_ops());
  if (auto info = calls.tcp_info(sock->native())) {
    res.mss = net::full_segment_mss(*info).value;  // the same MSS as the chunk line's
    res.timestamps = info->timestamps;
  } else {
    res.tcp_info_error = info.error().message();
  }
  return res;
}

}  // namespace ackstall::ttcp
