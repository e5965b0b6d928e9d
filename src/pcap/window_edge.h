// Internal: a flight that reaches the right edge of the window the receiver offered is the
// receiver's window, whatever its spacing (issue 37).
//
// The rule: the sender may send up to the ACK number plus the window of the latest ACK it has
// received (RFC 9293 §3.8.6). Seen from the capture point, that ACK left the receiver one
// "sender lag" before the data: at the sender's side nothing (the ACK arrives, the data leaves),
// beside the receiver the whole round trip (the handshake's, less the data-to-ACK floor). A
// burst of new data (the segments that follow an ACK) "reaches the edge" when its last segment
// leaves less than one full segment of that window unused. A flow most of whose bursts reach
// the edge carries the offered window each round trip: the receiver's window bounds it, even
// where the receiver ACKs every second segment and so carries only two thirds of it per round
// trip (Little's law alone misses that; T-RAT's receiver-window-limited test, Zhang et al.
// SIGCOMM 2002 §3.2, compares the flight with the window in the same way).
// Only with the handshake's window scale known (RFC 7323 §2.2): a capture started mid-stream
// cannot say how large the window it reads is.
// Allocation-free: the last kAcks ACKs' edges in a ring.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ackstall::pcap::detail {

class WindowEdge {
 public:
  // An ACK from the receiver: its ACK number plus its (scaled) window.
  void note_ack(std::int64_t now, std::int64_t edge) noexcept {
    ring_[next_++ % kAcks] = {now, edge};
    ack_since_data_ = true;
  }
  // A new-data segment ending at data_end; lag: the sender lag above; full: a full segment.
  void note_data(std::int64_t now, std::int64_t data_end, std::int64_t lag, std::int64_t full) noexcept {
    if (ack_since_data_) {
      close_burst();
      ack_since_data_ = false;
    }
    const std::int64_t cutoff = now - lag;
    const std::size_t n = next_ < kAcks ? next_ : kAcks;
    for (std::size_t i = 0; i < n; ++i) {
      const Ack& a = ring_[(next_ - 1 - i) % kAcks];
      if (a.time > cutoff) continue;
      in_burst_ = true;
      if (data_end + full > a.edge) at_edge_ = true;
      return;
    }
  }
  // Bursts with a known edge, and those that reached it (the current one included).
  std::uint64_t bursts() const noexcept { return bursts_ + (in_burst_ ? 1 : 0); }
  std::uint64_t at_edge() const noexcept { return at_edge_bursts_ + (in_burst_ && at_edge_ ? 1 : 0); }
  // Most bursts (two thirds, over 8 or more) reached the edge.
  bool bound() const noexcept { return bursts() >= 8 && 3 * at_edge() >= 2 * bursts(); }

 private:
  void close_burst() noexcept {
    if (!in_burst_) return;
    ++bursts_;
    if (at_edge_) ++at_edge_bursts_;
    in_burst_ = at_edge_ = false;
  }
  struct Ack {
    std::int64_t time = 0, edge = 0;
  };
  static constexpr std::size_t kAcks = 64;
  std::array<Ack, kAcks> ring_{};
  std::size_t next_ = 0;
  bool ack_since_data_ = false, in_burst_ = false, at_edge_ = false;
  std::uint64_t bursts_ = 0, at_edge_bursts_ = 0;
};

}  // namespace ackstall::pcap::detail
