// ackstall/pcap/scan_file.h — read + decode + scan a whole capture file (what `ackstall scan`
// and the benchmark run).
//
// Frames that are not IPv4/TCP, or whose headers were not captured, are counted by reason and
// skipped; only file-level problems (not pcap, truncated record, bad record length) are errors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/flow_key.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

struct FileScan {
  std::uint64_t records = 0;
  std::uint64_t tcp_packets = 0;
  std::map<std::string, std::uint64_t> skipped;  // reason -> count
  std::vector<FlowReport> flows;                 // filtered
};

Result<FileScan> scan_file(const std::filesystem::path& path, ScanOptions options = {},
                           const std::optional<FlowFilter>& filter = std::nullopt);

}  // namespace ackstall::pcap
