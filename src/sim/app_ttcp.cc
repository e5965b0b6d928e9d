// ttcp -t (app_ttcp.h; the per-send and per-read steps are inline there). Sources:
// docs/STACKS.md §0 (the seed's ttcp runs), §1 (AFD, KB214397), §2 (Cygwin's send loop); the
// chunk policy is core's (core/chunk_policy.h).
#include "ackstall/sim/app_ttcp.h"

#include <cmath>

namespace ackstall::sim {

TtcpTransmitter::TtcpTransmitter(const TtcpTransmitterConfig& cfg, const core::SocketParams& chunk_params,
                                 std::int64_t cpu_ps_per_byte)
    : cfg_(cfg), chunker_(cfg.chunking, chunk_params), cpu_ps_per_byte_(cpu_ps_per_byte) {}

Nanos TtcpTransmitter::connected(Nanos now) noexcept {
  state_ = State::running;
  started_at_ = now;
  return now;
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
    if (cpu_ps > 0) return {.kind = TxKind::sleep, .at = now + Nanos(cpu_ps / 1000)};  // scp: encrypt first
  }
  // The simulated Cygwin calls the very chunk policy of core (seed's get_chunk).
  if (piece_left_ == 0)
    piece_left_ = static_cast<std::int64_t>(chunker_.next_chunk(static_cast<std::size_t>(write_left_)));
  return {.kind = TxKind::send, .len = piece_left_, .nonblocking = cfg_.nonblocking};
}

Nanos exponential(Rng& rng, Nanos mean) noexcept {
  if (mean.count() <= 0) return Nanos::zero();
  // Inverse transform of a 53-bit uniform in (0, 1].
  const double u = (static_cast<double>(rng.next() >> 11) + 1.0) * 0x1.0p-53;
  return Nanos(static_cast<std::int64_t>(-std::log(u) * static_cast<double>(mean.count())));
}

}  // namespace ackstall::sim
