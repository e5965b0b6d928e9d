#include "ackstall/lab/config.h"

#include "ackstall/core/link_framing.h"
#include "ackstall/core/units.h"

#include <charconv>
#include <cmath>

namespace ackstall::lab {

std::string_view to_string(ReceiverAcks v) noexcept { return v == ReceiverAcks::windows ? "windows" : "kernel"; }

std::optional<ReceiverAcks> parse_receiver_acks(std::string_view s) noexcept {
  if (s == "kernel") return ReceiverAcks::kernel;
  if (s == "windows") return ReceiverAcks::windows;
  return std::nullopt;
}

core::Result<double> parse_drop_probability(std::string_view text) {
  double p = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p, std::chars_format::fixed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(p)) {
    return core::fail("'" + std::string(text) + "' is not a probability (a number from 0 to 1, e.g. 0.3)");
  }
  if (p < 0 || p > 1) return core::fail("'" + std::string(text) + "' is outside [0, 1]");
  return p;
}

core::Result<std::int64_t> parse_rate(std::string_view rate) {
  auto bps = core::parse_rate_bps(rate);
  if (!bps) return bps;
  if (*bps < 8'000 || *bps > 100'000'000'000) {
    return core::fail("rate '" + std::string(rate) + "' is outside 8kbit..100gbit");
  }
  return bps;
}

double line_rate_bytes_per_s(std::int64_t rate_bps, bool timestamps) {
  const std::int64_t options = timestamps ? core::kTimestampOptionBytes : 0;
  return core::goodput_ceiling_bytes_per_s(rate_bps, core::LinkFraming::ethernet(),
                                           core::full_segment_payload(1500, options), options);
}

}  // namespace ackstall::lab
