#include "ackstall/analysis/sim_causes.h"

namespace ackstall::analysis {
namespace {

pcap::ScanOptions options(std::int64_t threshold_ns) {
  pcap::ScanOptions o;
  o.threshold_ns = threshold_ns;
  o.keep_stalls = 0;  // the accounts only: no stall list
  return o;
}

}  // namespace

CauseTraceSink::CauseTraceSink(std::int64_t stall_threshold_ns)
    : scanner_(options(stall_threshold_ns)),
      packets_(
          [this](const pcap::TcpPacket& p) -> pcap::Result<void> {
            scanner_.add(p);
            return {};
          },
          CapturePoint::sender, 0) {}

std::optional<pcap::DirectionReport> CauseTraceSink::finish() {
  (void)packets_.finish();  // a consumer that cannot fail
  std::optional<pcap::DirectionReport> best;
  for (const auto& f : scanner_.report()) {
    for (const auto& d : f.directions) {
      if (!best || d.bytes_sent > best->bytes_sent) best = d;
    }
  }
  return best;
}

}  // namespace ackstall::analysis
