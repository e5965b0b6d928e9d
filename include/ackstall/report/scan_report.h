// ackstall scan's output: one capture's report as text or JSON (flows, stalls with frame
// numbers, the diagnosis and verdict of pcap/diagnosis.h).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "ackstall/core/units.h"
#include "ackstall/pcap/scan_file.h"

namespace ackstall::report {

struct ScanPrint {
  core::StallThreshold threshold = core::kDefaultStallThreshold;
  bool flow_filtered = false;
  std::size_t max_stalls = 20;
  // A capture of several connections opens with the triage table (pcap/triage.h): at most `top`
  // rows, then the full reports of those rows' connections that have a problem; `all`: every
  // row and every connection's report.
  std::size_t top = 20;
  bool all = false;
};

void print_scan_text(const ScanPrint& o, const pcap::FileScan& scan, std::ostream& out);
// scan's JSON output: one capture's document, or {"captures": [...]} for several, with every stall
// list streamed (a line per stall) rather than built in memory.
void write_scan_json(const ScanPrint& o, const std::vector<const pcap::FileScan*>& scans, std::ostream& out);

// One line for a stall as a live capture finds it (time of day, flow, duration, kind, frames).
void print_live_stall(const pcap::SocketAddr& sender, const pcap::SocketAddr& receiver, const pcap::Stall& s,
                      std::ostream& out);
// "206 IPv6/UDP frames, 3 ARP" — what a capture held instead of TCP.
std::string skipped_summary(const pcap::FileScan& scan);

}  // namespace ackstall::report
