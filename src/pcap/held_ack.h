// Internal: a delayed-ACK wait is a stall only if the ACK released the sender (issue 37).
//
// A wait that ends with an ACK of one lone segment held beyond the path looks like a delayed-ACK
// stall, but it cost the transfer something only if the sender was waiting for that ACK: then its
// next segment follows the ACK within its reaction time (at the sender's side of the capture at
// once; beside the receiver one round trip later). A polling application whose next request
// comes a median 90 ms after the ACK was not held by it: the time is the application's (or the
// peer's), and no receiver fix changes it. The rule: the wait is a delayed-ACK stall when the
// sender's next segment (data or FIN) follows the ACK within the time an ACK takes from the
// capture point to the sender and its data back (HalfFlow::ack_to_sender_ns) plus its
// reaction time: half the stall threshold (10 ms by default: a loaded host's wake-up, measured in
// the lab, takes a few ms), or twice the flow's median ACK-to-data time of ACK-clocked sends
// (measured over 4 or more) where that is longer, at most the threshold (a reaction as slow as a
// stall is none).
// Until that segment comes, the wait is held here, neither counted nor accounted; at the capture's
// end, with nothing after it to say otherwise, it counts.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>

#include "ackstall/core/log_bucket.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap::detail {

class HeldAck {
 public:
  struct Wait {
    Stall stall;
    std::int64_t path_ns = 0;  // the floor's share of the wait (the path's, not the timer's)
  };

  // An ACK-clocked send: the time from the ACK to the data it let go.
  void note_reaction(std::int64_t ack_to_data_ns) noexcept {
    ++hist_[core::quarter_octave_us_bucket(ack_to_data_ns, kBuckets - 1)];
    ++count_;
  }
  // How long after the ACK the sender's next segment may come for the ACK to have released it.
  std::int64_t bound_ns(std::int64_t path_rtt_ns, std::int64_t threshold_ns) const noexcept {
    std::int64_t reaction = threshold_ns / 2;  // the small bound
    if (const auto m = median_ns()) reaction = std::max(reaction, std::min(2 * *m, threshold_ns));
    return path_rtt_ns + reaction;
  }
  void hold(const Wait& w) noexcept { held_ = w; }
  std::optional<Wait>& held() noexcept { return held_; }
  bool pending() const noexcept { return held_.has_value(); }
  const std::optional<Wait>& peek() const noexcept { return held_; }

 private:
  std::optional<std::int64_t> median_ns() const noexcept {
    if (count_ < 4) return std::nullopt;
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      seen += hist_[b];
      if (2 * seen >= count_) return static_cast<std::int64_t>(1000.0 * std::exp2((static_cast<double>(b) + 1) / 4.0));
    }
    return std::nullopt;
  }
  static constexpr std::size_t kBuckets = 112;  // 4 an octave from 1 us
  std::array<std::uint32_t, kBuckets> hist_{};
  std::uint64_t count_ = 0;
  std::optional<Wait> held_;
};

}  // namespace ackstall::pcap::detail
