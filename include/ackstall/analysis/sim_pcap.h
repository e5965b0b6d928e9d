// A sim::TraceSink that writes every frame the simulated NICs put on the wire into a pcap file
// (Ethernet/IPv4/TCP, nanosecond timestamps), through the pcap library's streaming Writer.
// Timestamps are simulated time plus `epoch_ns` (default kSeedEpochNs: midnight UTC of the day the
// seed was posted, docs/STACKS.md §0), taken where the capture is (CapturePoint):
//   wire      a tap on the cable: every frame at its first bit (the default);
//   sender    the data sender's host (tcpdump there): its own frames at their first bit on the wire,
//             the peer's at their last bit in;
//   receiver  the data receiver's host, the same way round — as a capture a user takes on the
//             receiving machine (and the lab's dumpcap on the receiver's veth, docs/VALIDATION.md §4).
// A host capture stamps an outgoing frame when the driver takes it; the simulator's is its first
// bit on the wire, later by any wait in the NIC's queue. Records are written in timestamp order
// (a small reorder buffer: a frame can be stamped after a frame reported later). Frames dropped by
// a full queue never reach the wire and are not written. Call finish() after the run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/pcap/writer.h"
#include "ackstall/sim/trace.h"

namespace ackstall::analysis {

enum class CapturePoint : std::uint8_t { wire, sender, receiver };
inline constexpr std::string_view kCapturePointNames[] = {"wire", "sender", "receiver"};  // by value
std::optional<CapturePoint> parse_capture_point(std::string_view name) noexcept;

class PcapTraceSink final : public sim::TraceSink {
 public:
  static constexpr std::int64_t kSeedEpochNs = 1145923200LL * 1'000'000'000;

  // Where the packets go, in timestamp order: a pcap file (the Writer) or any consumer (e.g. a
  // pcap::StallScanner: sim_causes.h).
  using Consumer = std::function<pcap::Result<void>(const pcap::TcpPacket&)>;

  explicit PcapTraceSink(pcap::Writer writer, CapturePoint at = CapturePoint::wire,
                         std::int64_t epoch_ns = kSeedEpochNs);
  PcapTraceSink(Consumer consumer, CapturePoint at, std::int64_t epoch_ns = kSeedEpochNs)
      : consumer_(std::move(consumer)), at_(at), epoch_ns_(epoch_ns) {}
  PcapTraceSink(const PcapTraceSink&) = delete;  // consumer_ may point into this
  PcapTraceSink& operator=(const PcapTraceSink&) = delete;

  void on_frame(const sim::WireFrame& frame) override;
  // Writes the frames still held for ordering and flushes the file; the first error, if any.
  pcap::Result<void> finish();
  // The first write error, if any (the simulation cannot be interrupted from a sink).
  const std::optional<std::string>& error() const noexcept { return error_; }

  // The frame's timestamp at capture point `at` (simulated ns, before the epoch is added).
  static sim::Nanos stamp(const sim::WireFrame& frame, CapturePoint at) noexcept;
  static pcap::TcpPacket to_packet(const sim::WireFrame& frame, std::int64_t epoch_ns, CapturePoint at);

 private:
  struct Held {
    std::uint64_t order;  // report order: equal stamps keep it
    pcap::TcpPacket packet;
    bool operator>(const Held& o) const noexcept {
      return packet.time_ns != o.packet.time_ns ? packet.time_ns > o.packet.time_ns : order > o.order;
    }
  };
  void write_until(std::int64_t stamp);

  std::optional<pcap::Writer> writer_;  // when writing a file; consumer_ writes to it
  Consumer consumer_;
  CapturePoint at_;
  std::int64_t epoch_ns_;
  std::uint64_t reported_ = 0;
  std::priority_queue<Held, std::vector<Held>, std::greater<>> held_;
  std::optional<std::string> error_;
};

}  // namespace ackstall::analysis
