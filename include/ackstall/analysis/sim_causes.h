// The simulator's run told in core's causes (core/limit_cause.h), two ways:
//   own      the simulator's own accounts (sim/cause_accounts.h): it knows why each of its waits
//            happened (the stalls it marks, core/stall_kind.h) — the default, at a small cost;
//   scanner  every frame the simulated NICs put on the wire, stamped as a capture on the data
//            sender's host would see it (sim_pcap.h, CapturePoint::sender), read by
//            pcap::StallScanner (CauseTraceSink): what `ackstall scan` says of the run's capture.
// Both give every moment of the transfer to one cause, so the shares sum to 100 % where the
// simulator's own stall kinds overlap (a quota wait holds the delayed ACK that ends it).
// compare_causes() holds the two to agree (`ackstall sim --causes check`, and
// tests/analysis/sim_causes_test.cc over the seed's table and the maps' cells).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/units.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/stall_scanner.h"
#include "ackstall/sim/cause_accounts.h"
#include "ackstall/sim/trace.h"
#include "ackstall/analysis/sim_pcap.h"

namespace ackstall::analysis {

class CauseTraceSink final : public sim::TraceSink {
 public:
  explicit CauseTraceSink(core::StallThreshold stall_threshold);
  void on_frame(const sim::WireFrame& frame) override { packets_.on_frame(frame); }
  void on_stall(const sim::StallMarker&) override {}
  // The direction that carried the data, after the run; nullopt if none did.
  std::optional<pcap::DirectionReport> finish();

 private:
  pcap::StallScanner scanner_;
  PcapTraceSink packets_;
};

// Nonzero causes as shares of the duration, largest first (ties in core's order), as
// pcap::Diagnosis::accounts lists them.
std::vector<pcap::CauseShare> cause_shares(const core::CauseTimes& ns, std::int64_t duration_ns);

// The two accounts agree when they name the same dominant cause and every cause's share differs
// by at most kCauseTolerance (2 percentage points). The simulator's accounts follow the
// scanner's rules (sim/cause_accounts.h) with its own stalls for the scanner's inferred kinds; they
// differ where a marked stall and an inferred one cover different spans (a delayed ACK marked at
// the receiver from the timer's arm, seen at the sender from its last segment: the path's floor
// apart), a fraction of a round trip per stall: under 0.1 point on every seed row.
inline constexpr double kCauseTolerance = 0.02;
struct CauseComparison {
  bool agree = false;
  double tolerance = 0;  // share, 0..1
  std::vector<pcap::CauseShare> own, scanner;
  std::string detail;  // the first disagreement, one line ("" when they agree)
};
CauseComparison compare_causes(const sim::CauseAccounts& own, const pcap::DirectionReport& scanned);

}  // namespace ackstall::analysis
