#include "ackstall/pcap/capture_artefacts.h"

#include <fmt/format.h>

#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

bool DuplicateFilter::is_duplicate(const TcpPacket& p, bool from_a, std::uint16_t ip_id) noexcept {
  const std::size_t side = from_a ? 0 : 1;
  const bool has_tsval = p.options.timestamps.has_value();
  const std::uint32_t tsval = has_tsval ? p.options.timestamps->val : 0;
  if (ip_id != 0 || has_tsval) {
    for (const Seen& s : ring_[side]) {
      // The sequence and ACK numbers first: they differ between nearly all frames of a direction
      // (a data sender's sequence, a receiver's ACK), so most entries cost one test (docs/BENCHMARKS.md
      // "scan vs tshark").
      if (s.seq != p.seq || s.ack != p.ack) continue;
      if (!s.valid || p.time_ns - s.time_ns > kDuplicateWindowNs || p.time_ns < s.time_ns) continue;
      const bool same_identity = ip_id != 0 ? s.ip_id == ip_id : (s.has_tsval && s.tsval == tsval);
      if (same_identity && s.seq == p.seq && s.ack == p.ack && s.flags == p.flags && s.window == p.window &&
          s.payload_len == p.payload_len && (!has_tsval || (s.has_tsval && s.tsval == tsval))) {
        ++count_[side];
        return true;
      }
    }
  }
  ring_[side][next_[side]++ % kRing] = {.time_ns = p.time_ns, .seq = p.seq, .ack = p.ack,
                                        .payload_len = p.payload_len, .tsval = tsval, .ip_id = ip_id,
                                        .window = p.window, .flags = p.flags, .has_tsval = has_tsval,
                                        .valid = true};
  return false;
}

std::optional<std::string> duplicate_frames_warning(const DirectionReport& d) {
  if (d.duplicate_frames == 0) return std::nullopt;
  return fmt::format(
      "{} frame{} of this direction {} captured twice (same IP ID or TCP timestamp, sequence and length, within "
      "1 ms: a mirrored port or two capture interfaces): left out, not counted as retransmissions",
      d.duplicate_frames, d.duplicate_frames == 1 ? "" : "s", d.duplicate_frames == 1 ? "was" : "were");
}

bool offloaded_segments(const DirectionReport& d) {
  return d.mss && *d.mss > 0 && d.max_segment > *d.mss;
}

std::optional<std::string> offload_warning(const DirectionReport& d) {
  if (!offloaded_segments(d)) return std::nullopt;
  return fmt::format(
      "segments of up to {} bytes, larger than the announced MSS ({}): captured on a host with segmentation offload "
      "(TSO/GSO at the sender, GRO at the receiver), before the NIC cut them; write boundaries and segment counts "
      "are not in this capture (capture on the path, or turn offload off: `ethtool -K IFACE tso off gso off gro off`)",
      d.max_segment, *d.mss);
}

}  // namespace ackstall::pcap
