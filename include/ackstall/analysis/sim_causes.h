// The simulator's run told in the scanner's vocabulary (core/limit_cause.h): every frame the
// simulated NICs put on the wire, stamped as a capture on the data sender's host would see it
// (sim_pcap.h, CapturePoint::sender), goes through pcap::StallScanner, whose accounts give every
// moment of the transfer to one cause. So `ackstall sim` and `ackstall scan` of the same run name
// the same causes with the same rules (docs/SCAN.md "Where the time went"), and the shares sum to
// 100 % where the simulator's own stall kinds overlap (a quota wait holds the delayed ACK that
// ends it).
#pragma once

#include <optional>

#include "ackstall/pcap/stall_scanner.h"
#include "ackstall/sim/trace.h"
#include "ackstall/analysis/sim_pcap.h"

namespace ackstall::analysis {

class CauseTraceSink final : public sim::TraceSink {
 public:
  explicit CauseTraceSink(std::int64_t stall_threshold_ns);
  void on_frame(const sim::WireFrame& frame) override { packets_.on_frame(frame); }
  void on_stall(const sim::StallMarker&) override {}
  // The direction that carried the data, after the run; nullopt if none did.
  std::optional<pcap::DirectionReport> finish();

 private:
  pcap::StallScanner scanner_;
  PcapTraceSink packets_;
};

}  // namespace ackstall::analysis
