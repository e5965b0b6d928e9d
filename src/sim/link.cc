#include "ackstall/sim/link.h"

#include <algorithm>

namespace ackstall::sim {

std::int64_t wire_bytes(const LinkConfig& l, std::int64_t ip_len) noexcept {
  // §5: Ethernet 8 preamble/SFD + 14 header + 4 FCS + 12 IFG; 64-byte minimum frame.
  return std::max<std::int64_t>(ip_len + l.framing_overhead - l.frame_gap, l.min_frame) + l.frame_gap;
}

Nanos tx_time(const LinkConfig& l, std::int64_t wire) noexcept {
  __extension__ typedef unsigned __int128 u128;
  const u128 bits_ns = static_cast<u128>(wire) * 8u * 1'000'000'000u;
  const auto rate = static_cast<u128>(l.rate_bps);
  return Nanos(static_cast<std::int64_t>((bits_ns + rate - 1) / rate));
}

bool LinkDirection::enqueue(const Segment& s, bool& starts) {
  starts = false;
  if (queue_.size() >= static_cast<std::size_t>(limit_)) return false;  // drop-tail
  queue_.push_back(s);
  starts = queue_.size() == 1;
  return true;
}

bool LinkDirection::tx_done(Nanos deliver_at) {
  flight_.push_back({queue_.front(), deliver_at});
  queue_.pop_front();
  return !queue_.empty();
}

InFlight LinkDirection::pop_arrival() {
  InFlight f = flight_.front();
  flight_.pop_front();
  return f;
}

}  // namespace ackstall::sim
