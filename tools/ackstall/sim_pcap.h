// A sim::TraceSink that writes every frame the simulated NICs put on the wire into a pcap file
// (Ethernet/IPv4/TCP, nanosecond timestamps), through the pcap library's streaming Writer.
// Timestamps are simulated time plus `epoch_ns` (default: the seed's date, 2006-04-25 UTC).
// Frames dropped by a full queue never reach the wire and are not written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ackstall/pcap/writer.h"
#include "ackstall/sim/trace.h"

namespace ackstall::tools {

class PcapTraceSink final : public sim::TraceSink {
 public:
  static constexpr std::int64_t kSeedEpochNs = 1145923200LL * 1'000'000'000;

  explicit PcapTraceSink(pcap::Writer writer, std::int64_t epoch_ns = kSeedEpochNs)
      : writer_(std::move(writer)), epoch_ns_(epoch_ns) {}

  void on_frame(const sim::WireFrame& frame) override;
  // The first write error, if any (the simulation cannot be interrupted from a sink).
  const std::optional<std::string>& error() const noexcept { return error_; }
  pcap::Writer& writer() noexcept { return writer_; }

  static pcap::TcpPacket to_packet(const sim::WireFrame& frame, std::int64_t epoch_ns);

 private:
  pcap::Writer writer_;
  std::int64_t epoch_ns_;
  std::optional<std::string> error_;
};

}  // namespace ackstall::tools
