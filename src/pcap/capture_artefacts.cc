#include "ackstall/pcap/capture_artefacts.h"

#include <fmt/format.h>

#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

Artefact DuplicateFilter::classify(const TcpPacket& p, bool from_a, std::uint16_t ip_id, std::uint8_t ttl) noexcept {
  const std::size_t side = from_a ? 0 : 1;
  const bool has_tsval = p.options.timestamps.has_value();
  const std::uint32_t tsval = has_tsval ? p.options.timestamps->val : 0;
  if (ip_id != 0 || has_tsval) {
    for (const Seen& s : ring_[side]) {
      // The sequence and ACK numbers first: they differ between nearly all frames of a direction
      // (a data sender's sequence, a receiver's ACK), so most entries cost one test (docs/BENCHMARKS.md
      // "scan vs tshark").
      if (s.seq != p.seq || s.ack != p.ack) continue;
      if (!s.valid || p.time_ns < s.time_ns) continue;
      const std::int64_t age = p.time_ns - s.time_ns;
      // A router's copy: the same datagram (IPv4 ID), one hop on (another TTL).
      const bool forwarded = ip_id != 0 && s.ip_id == ip_id && ttl != 0 && s.ttl != 0 && s.ttl != ttl;
      if (age > (forwarded ? kForwardedWindowNs : kDuplicateWindowNs)) continue;
      const bool same_identity = ip_id != 0 ? s.ip_id == ip_id : (s.has_tsval && s.tsval == tsval);
      if (same_identity && s.seq == p.seq && s.ack == p.ack && s.flags == p.flags && s.window == p.window &&
          s.payload_len == p.payload_len && (!has_tsval || (s.has_tsval && s.tsval == tsval))) {
        if (forwarded) {
          ++forwarded_[side];
          return Artefact::forwarded;
        }
        ++count_[side];
        return Artefact::duplicate;
      }
    }
  }
  ring_[side][next_[side]++ % kRing] = {.time_ns = p.time_ns, .seq = p.seq, .ack = p.ack,
                                        .payload_len = p.payload_len, .tsval = tsval, .ip_id = ip_id,
                                        .window = p.window, .flags = p.flags, .ttl = ttl,
                                        .has_tsval = has_tsval, .valid = true};
  return Artefact::none;
}

std::optional<std::string> duplicate_frames_warning(const DirectionReport& d) {
  if (d.duplicate_frames == 0) return std::nullopt;
  return fmt::format(
      "{} frame{} of this direction {} captured twice (same IP ID or TCP timestamp, sequence and length, within "
      "1 ms: a mirrored port or two capture interfaces): left out, not counted as retransmissions",
      d.duplicate_frames, d.duplicate_frames == 1 ? "" : "s", d.duplicate_frames == 1 ? "was" : "were");
}

std::optional<std::string> forwarded_copies_warning(const DirectionReport& d) {
  if (d.forwarded_copies == 0) return std::nullopt;
  return fmt::format(
      "{} frame{} of this direction {} captured again as a router forwarded {} (same IP ID, sequence and length, "
      "another TTL, within 100 ms: the capture is on a LAN the datagrams cross twice): left out, not counted as "
      "retransmissions",
      d.forwarded_copies, d.forwarded_copies == 1 ? "" : "s", d.forwarded_copies == 1 ? "was" : "were",
      d.forwarded_copies == 1 ? "it" : "them");
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
