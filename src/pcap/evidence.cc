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
  return mid_stream_flight(d);
}

std::optional<std::string> thin_evidence(const DirectionReport& d) {
  if (!d.rtt_floor_ns) return std::nullopt;
  const std::int64_t rtt = std::max(*d.rtt_floor_ns, d.handshake_rtt_ns.value_or(0));
  const double rounds = rtt > 0 ? static_cast<double>(d.duration_ns) / static_cast<double>(rtt) : 1e9;
  if (d.data_segments >= kSettleSegments && rounds >= static_cast<double>(kSettleRoundTrips)) return std::nullopt;
  return fmt::format(
      "the evidence is thin: {} data segment{} over {} round trips; a capture of {} or more segments over {} or "
      "more round trips of the same transfer would settle it",
      d.data_segments, d.data_segments == 1 ? "" : "s", rounds >= 1e8 ? std::string("many") : fmt::format("{:.1f}", rounds),
      kSettleSegments, kSettleRoundTrips);
}

std::optional<std::string> mid_stream_flight(const DirectionReport& d) {
  // Started mid-stream with neither SYN (window scale, MSS and the handshake's round trip
  // unknown; RFC 7323 §2.2: the scale lives only in the SYNs): the window read is a lower bound
  // of the window, and beside the receiver nothing gives the round trip. A flight held below the
  // window read may be the receiver's window (scaled), the sender's buffer or the application's
  // pace: a flight below half the window read is below the window whatever its scale (the
  // sender's buffer, soundly), but one that comes near the window read may be either the window
  // or the buffer: they look alike. A stated event (loss, a zero window) is judged, and so is a
  // flight whose stops settled it: at the edge of the window for the smallest scale the data
  // allows, or a full segment or more short of it round after round (scale_fit.h).
  if (!d.no_handshake || d.loss_events > 0 || d.zero_window_acks > 0) return std::nullopt;
  const auto top = static_cast<core::LimitCause>(std::ranges::max_element(d.cause_ns) - d.cause_ns.begin());
  if (d.mid_stream_limit == top) return std::nullopt;
  // The flight's time read as the path's on a path not shown full is the same flight.
  const bool flight = top == core::LimitCause::receiver_window || top == core::LimitCause::send_buffer ||
                      (top == core::LimitCause::network && !d.path_full);
  if (!flight) return std::nullopt;
  // (Beside the receiver the flight at an ACK is only the last hop's, and without the handshake
  // nothing tells that vantage from a LAN's: a data-to-ACK floor under 1 ms says nothing of the
  // flight either.)
  if (2 * d.flight_p90 < d.max_window_offered && d.rtt_floor_ns.value_or(0) >= 1'000'000) return std::nullopt;
  return std::string(
      "the capture started mid-stream, without the SYNs' window scale and round trip: the receiver's window "
      "and the sender's buffer look alike here (capture from "
      "the connection's start, or read the window with `ss -tin` on the sender)");
}

}  // namespace ackstall::pcap
