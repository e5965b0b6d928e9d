// ackstall/core/recent_spacings.h — the last 8 spacings of consecutive full-size segments of a
// sender and their median: the pace its segments leave at. The scanner (pcap HalfFlow) and the
// simulator's own cause accounts (sim CauseAccountant) both judge "queued behind the segment
// before at a bottleneck" against it (docs/SCAN.md, the rules table: "Application-limited").
// Fixed size: no allocation per segment.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ackstall::core {

class RecentSpacings {
 public:
  void add(std::int64_t ns) noexcept { v_[count_++ % v_.size()] = ns; }
  // The median of the last (up to) 8, once there are 2 (of an even count, the upper middle one).
  std::optional<std::int64_t> median() const noexcept {
    const std::size_t n = std::min(count_, v_.size());
    if (n < 2) return std::nullopt;
    std::array<std::int64_t, 8> v = v_;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(v.begin(), mid, v.begin() + static_cast<std::ptrdiff_t>(n));
    return *mid;
  }

 private:
  std::array<std::int64_t, 8> v_{};
  std::size_t count_ = 0;
};

}  // namespace ackstall::core
