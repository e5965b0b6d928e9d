#include "ackstall/pcap/evidence.h"

#include <fmt/format.h>

#include <algorithm>

#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

std::optional<std::string> too_little_evidence(const DirectionReport& d) {
  if (d.bytes_acked == 0 || !d.rtt_floor_ns) {
    return std::string("no ACK of its data in the capture (one direction captured, or the capture ends first)");
  }
  // A zero window is the receiver's own statement, not a pattern read from the flight: one
  // segment held by it for seconds (a reader that stopped) is judged (RFC 9293 §3.8.6).
  if (d.zero_window_acks > 0) return std::nullopt;
  if (d.data_segments < kMinDataSegments) {
    return fmt::format("only {} data segment{} (a pattern needs {} or more)", d.data_segments,
                       d.data_segments == 1 ? "" : "s", kMinDataSegments);
  }
  const std::int64_t rtt = std::max(*d.rtt_floor_ns, d.handshake_rtt_ns.value_or(0));
  if (rtt > 0 && d.duration_ns < kMinRoundTrips * rtt) {
    return fmt::format("the transfer lasted {:.1f} round trips of {:.3f} ms (a pattern needs {} or more)",
                       static_cast<double>(d.duration_ns) / static_cast<double>(rtt),
                       static_cast<double>(rtt) / 1e6, kMinRoundTrips);
  }
  return std::nullopt;
}

}  // namespace ackstall::pcap
