#include "ackstall/lab/tail_drop.h"

namespace ackstall::lab {

bool is_write_tail(const TcpFrame& t) noexcept {
  if (t.payload == 0 || !(t.flags & kTcpPsh)) return false;
  if (t.flags & (kTcpSyn | kTcpFin | kTcpRst)) return false;
  // A GSO frame of several segments: its PSH is its last segment's, not the whole frame's.
  return t.gso_size == 0 || t.payload <= t.gso_size;
}

double seeded_draw(std::uint64_t seed, std::uint64_t n) noexcept {
  std::uint64_t z = seed + (n + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

bool TailDropper::drop(std::span<const std::byte> frame) {
  if (probability_ <= 0) return false;
  const auto t = parse_tcp_frame(frame);
  if (!t) return false;
  const FrameFlowKey k = frame_flow_key(t->src, t->sport, t->dst, t->dport);
  if (t->flags & (kTcpSyn | kTcpRst)) {
    seen_end_.erase(k);  // a new connection on these ports, or the end of this one
    return false;
  }
  const std::uint32_t end = t->seq + t->payload;
  const auto it = seen_end_.find(k);
  // New data: ending beyond the highest end seen (sequence arithmetic, RFC 9293 §3.4).
  const bool fresh = it == seen_end_.end() || static_cast<std::int32_t>(end - it->second) > 0;
  if (t->payload > 0 && fresh) seen_end_[k] = end;
  if (!fresh || !is_write_tail(*t)) return false;
  const bool lost = seeded_draw(seed_, draws_++) < probability_;
  dropped_ += lost ? 1 : 0;
  return lost;
}

}  // namespace ackstall::lab
