// ackstall/pcap/scan_file.h — read + decode + scan a whole capture file (what `ackstall scan`
// and the benchmark run).
//
// Frames that are not IPv4/TCP, or whose headers were not captured, are counted by reason and
// skipped; only file-level problems (not pcap, truncated record, bad record length) are errors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/flow_key.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

struct FileScan {
  std::uint64_t records = 0;
  std::int64_t first_ns = 0, last_ns = 0;  // record timestamps (0 when no record)
  std::uint64_t tcp_packets = 0;
  std::map<std::string, std::uint64_t> skipped;  // reason -> count
  std::vector<FlowReport> flows;                 // filtered
};

// `filters`: keep flows matching any of them (all flows when empty).
Result<FileScan> scan_file(const std::filesystem::path& path, ScanOptions options = {},
                           const std::vector<FlowFilter>& filters = {});

}  // namespace ackstall::pcap
