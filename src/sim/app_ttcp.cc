// ttcp -t (app_ttcp.h; the per-send and per-read steps are inline there). Sources:
// docs/STACKS.md §0 (the seed's ttcp runs), §1 (AFD, KB214397), §2 (Cygwin's send loop); the
// chunk policy is core's (core/chunk_policy.h).
#include "ackstall/sim/app_ttcp.h"

#include <algorithm>

namespace ackstall::sim {

TtcpTransmitter::TtcpTransmitter(const TtcpTransmitterConfig& cfg, const core::SocketParams& chunk_params,
                                 std::int64_t cpu_ps_per_byte, std::int64_t cpu_ahead_bytes)
    : cfg_(cfg), chunker_(cfg.chunking, chunk_params), cpu_ps_per_byte_(cpu_ps_per_byte) {
  // ssh encrypts more only while its output buffer holds < cpu_ahead_bytes, so at most
  // (B - 1) / write_len whole writes wait when the next encryption starts; at most 2^17 (1 MiB of
  // bookkeeping however small the writes).
  if (cpu_ahead_bytes > 0 && cfg.write_len > 0)
    cpu_ahead_writes_ =
        static_cast<std::size_t>(std::min<std::int64_t>((cpu_ahead_bytes - 1) / cfg.write_len, 1 << 17));
}

Nanos TtcpTransmitter::connected(Nanos now) noexcept {
  state_ = State::running;
  started_at_ = now;
  cpu_done_ = now;  // nothing is encrypted before the connection is up
  return now;
}

std::int64_t TtcpTransmitter::raise_sndbuf(std::int64_t peer_window) noexcept {
  core::SocketParams p = chunker_.params();
  p.peer_window = peer_window;
  p.sndbuf_set = true;  // the simulation sets SO_SNDBUF to the answer, raised or not (set_size)
  chunker_.update(p);
  const std::int64_t want = chunker_.recommended_sndbuf(static_cast<std::size_t>(cfg_.write_len));
  if (want > p.sndbuf) {
    p.sndbuf = want;
    chunker_.update(p);
  }
  return p.sndbuf;
}

TxRequest TtcpTransmitter::run(Nanos now) {
  if (state_ != State::running) return {};
  if (write_left_ == 0) {
    const bool timed_out = cfg_.duration > Nanos::zero() && now - started_at_ >= cfg_.duration;
    if (writes_done_ == cfg_.writes || timed_out) {
      state_ = State::done;
      return {.kind = cfg_.close_when_done ? TxKind::close : TxKind::none};
    }
    ++writes_done_;
    write_left_ = cfg_.write_len;
    piece_left_ = 0;
    split_nodelay_ = chunker_.nodelay_for(static_cast<std::size_t>(write_left_));
    const std::int64_t cpu_ps = cpu_ps_per_byte_ * cfg_.write_len;
    if (cpu_ps > 0) {  // scp: this write's encryption (serially, or begun while earlier writes waited)
      // `now`: the previous write has been accepted (the first write: connected).
      accepted_.push_back(now);
      if (accepted_.size() > cpu_ahead_writes_ + 1) accepted_.pop_front();
      // The output buffer has room once write k - 1 - N is accepted (the front when N + 1 are kept).
      const Nanos room = accepted_.size() == cpu_ahead_writes_ + 1 ? accepted_.front() : Nanos::zero();
      cpu_done_ = std::max(cpu_done_, room) + Nanos(cpu_ps / 1000);
      // Serially (N = 0) always a sleep, as before encrypt-ahead existed (even one of 0 ns).
      if (cpu_done_ > now || cpu_ahead_writes_ == 0) return {.kind = TxKind::sleep, .at = cpu_done_};
    }
  }
  // The simulated Cygwin calls the very chunk policy of core (seed's get_chunk).
  if (piece_left_ == 0)
    piece_left_ = static_cast<std::int64_t>(chunker_.next_chunk(static_cast<std::size_t>(write_left_), static_cast<std::size_t>(cfg_.write_len)));
  return {.kind = TxKind::send, .len = piece_left_, .nonblocking = cfg_.nonblocking};
}

}  // namespace ackstall::sim
