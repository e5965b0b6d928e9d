#include "ackstall/net/chunked_sender.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/net/path_probe.h"

namespace ackstall::net {

ChunkedSender::ChunkedSender(SocketOps& ops, NativeSocket s, SenderOptions options)
    : calls_(ops),
      socket_(s),
      options_(options),
      policy_(options.policy, {}),
      batch_(std::make_unique<std::array<core::ByteSlice, kMaxSlicesPerCall>>()) {}

Result<void> ChunkedSender::set_option(SocketOption opt, int value) {
  auto r = calls_.set_option(socket_, opt, value);
  // seed, cygwin_setsockopt: if (SO_SNDBUF==optname && SOL_SOCKET==level) fh->update_sndbuf ();
  // Marked stale even on failure: the kernel may have applied part of it; re-reading is cheap.
  if (opt == SocketOption::send_buffer || opt == SocketOption::tcp_maxseg) stale_ = true;
  if (opt == SocketOption::send_buffer && r) options_.sndbuf_set = true;
  return r;
}

bool ChunkedSender::follows_isb() const noexcept {
  if (options_.follow_isb) return *options_.follow_isb;
  return options_.policy == core::PolicyKind::automatic && options_.per_send_quota;
}

Result<void> ChunkedSender::update_isb(Clock::time_point now) {
  if (!follows_isb()) return {};
  if (isb_queried_ && now - *isb_queried_ < options_.isb_interval) return {};
  isb_queried_ = now;
  isb_ = query_ideal_send_backlog(calls_.ops(), socket_);
  if (isb_->provenance != Provenance::measured || isb_->value <= 0) return {};
  const std::int64_t want = std::min<std::int64_t>(isb_->value, INT_MAX);
  if (isb_applied_ == want) return {};
  if (auto r = set_option(SocketOption::send_buffer, static_cast<int>(want)); !r) return r;
  isb_applied_ = want;
  return {};
}

Result<void> ChunkedSender::refresh() {
  if (!stream_) {
    auto kind = calls_.socket_kind(socket_);
    if (!kind) return tl::unexpected(std::move(kind.error()));
    stream_ = kind->stream && kind->ip;
  }
  core::SocketParams params;
  params.stream = *stream_;
  // SO_SNDBUF must be read (errors are values here, unlike the seed's silent 8192 fallback:
  // a socket that cannot answer getsockopt cannot send either).
  auto reported = calls_.get_option(socket_, SocketOption::send_buffer);
  if (!reported) return tl::unexpected(std::move(reported.error()));
  params.sndbuf = calls_.ops().send_buffer_reported_doubled() ? *reported / 2 : *reported;
  params.mss = options_.mss > 0 ? options_.mss : probe_mss(calls_, socket_).value;
  params.per_send_quota = options_.per_send_quota;
  params.minshall_nagle = kMinshallNagle;
  params.allow_raise_sndbuf = options_.allow_raise_sndbuf;
  params.sndbuf_set = options_.sndbuf_set;
  // Only robust's raise reads the peer's window (core::SocketParams::peer_window): asked only
  // where the application allows the raise; a socket that cannot tell leaves it unknown.
  if (options_.allow_raise_sndbuf) {
    if (const auto info = calls_.tcp_info(socket_); info && info->snd_wnd > 0) params.peer_window = info->snd_wnd;
  }
  policy_.update(params);
  stale_ = false;
  return {};
}

Result<core::ChunkPolicy> ChunkedSender::policy() {
  if (stale_) {
    if (auto r = refresh(); !r) return tl::unexpected(std::move(r.error()));
  }
  return policy_;
}

Result<void> ChunkedSender::set_nodelay(bool on) {
  if (on) {
    // Leave an application's own TCP_NODELAY alone (and do not clear it afterwards).
    auto cur = calls_.get_option(socket_, SocketOption::tcp_nodelay);
    if (!cur) return tl::unexpected(std::move(cur.error()));
    nodelay_restore_ = *cur == 0;
    nodelay_set_ = true;
    if (!nodelay_restore_) return {};
    return calls_.set_option(socket_, SocketOption::tcp_nodelay, 1);
  }
  nodelay_set_ = false;
  if (!nodelay_restore_) return {};
  return calls_.set_option(socket_, SocketOption::tcp_nodelay, 0);
}

Result<SendOutcome> ChunkedSender::send(std::span<const core::ByteSlice> slices,
                                           SendFlags flags) {
  if (deferred_) {
    Error e = std::move(*deferred_);
    deferred_.reset();
    return tl::unexpected(std::move(e));
  }
  core::IoCursor cursor(slices);
  if (cursor.empty()) return SendOutcome{};
  if (follows_isb()) {
    if (auto r = update_isb(); !r) return tl::unexpected(std::move(r.error()));
  }
  if (stale_) {
    if (auto r = refresh(); !r) return tl::unexpected(std::move(r.error()));
  }
  // The mode is asked of the OS (one fcntl, ~1 us on a VM: BENCHMARKS.md) only when it decides
  // something: at a would-block, or when a chunk went out whole and more remains. A send that
  // fits in one chunk never asks.
  std::optional<bool> nonblocking_known;
  if (has(flags, SendFlags::dont_wait)) nonblocking_known = true;
  const auto nonblocking = [&]() -> Result<bool> {
    if (!nonblocking_known) {
      auto nb = calls_.is_nonblocking(socket_);
      if (!nb) return tl::unexpected(std::move(nb.error()));
      nonblocking_known = *nb;
    }
    return *nonblocking_known;
  };
  // An error after some bytes went out: report the bytes now, the error with the next send.
  const auto defer = [&](Error e, std::size_t total) -> Result<SendOutcome> {
    if (total == 0) return tl::unexpected(std::move(e));
    deferred_ = std::move(e);
    return SendOutcome{total, false};
  };

  // robust may ask for a larger SO_SNDBUF (KB823764's second workaround, chunk_policy.h).
  if (options_.allow_raise_sndbuf) {
    const std::int64_t want = policy_.recommended_sndbuf(cursor.remaining());
    if (want > policy_.params().sndbuf && want <= INT32_MAX) {
      if (auto r = set_option(SocketOption::send_buffer, static_cast<int>(want)); !r)
        return tl::unexpected(std::move(r.error()));
      if (auto r = refresh(); !r) return tl::unexpected(std::move(r.error()));
    }
  }

  const std::size_t request_len = cursor.remaining();  // this call's send (cygwin-patch: whole below S)
  std::size_t total = 0;
  const std::span<core::ByteSlice> batch(*batch_);
  for (;;) {
    // seed: thischunk = get_chunk (tot-ret); nextchunk (wsabuf, msg, thischunk, ...)
    const std::size_t chunk = policy_.next_chunk(cursor.remaining(), request_len);
    // robust, SO_SNDBUF < 2 MSS: TCP_NODELAY while a split send's pieces go out (§8).
    if (!nodelay_set_ && policy_.wants_nodelay() && policy_.nodelay_for(cursor.remaining())) {
      if (auto r = set_nodelay(true); !r) return defer(std::move(r.error()), total);
    }
    const std::size_t count = cursor.prepare(chunk, batch);
    std::size_t offered = 0;
    for (std::size_t i = 0; i < count; ++i) offered += batch[i].size;

    auto r = calls_.send(socket_, batch.first(count), flags);
    if (!r) return defer(std::move(r.error()), total);
    if (r->would_block) {
      // The quota is full: TCP_NODELAY until this request's last byte is out, so that Nagle
      // does not hold its short segment for the receiver's delayed ACK (robust, S <= MSS: §8).
      if (!nodelay_set_ && policy_.nodelay_when_blocked(request_len)) {
        if (auto n = set_nodelay(true); !n) return defer(std::move(n.error()), total);
      }
      auto nb = nonblocking();
      if (!nb) return defer(std::move(nb.error()), total);
      if (*nb) return SendOutcome{total, total == 0};
      // seed: while (WSAEWOULDBLOCK && !wait (evt, 0)) retry the same chunk
      if (auto w = calls_.wait_writable(socket_, -1); !w) return defer(std::move(w.error()), total);
      continue;
    }
    cursor.consume(r->bytes);
    total += r->bytes;
    if (nodelay_set_ && cursor.empty()) {  // the request's last piece is out: Nagle back on
      if (auto n = set_nodelay(false); !n) return defer(std::move(n.error()), total);
    }
    // seed: while (partialret == thischunk && nextchunk (...)); nonblocking: one chunk only.
    if (r->bytes < offered || cursor.empty()) return SendOutcome{total, false};
    auto nb = nonblocking();
    if (!nb) return defer(std::move(nb.error()), total);
    if (*nb) return SendOutcome{total, false};
  }
}

}  // namespace ackstall::net
