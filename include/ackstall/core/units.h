// ackstall/core/units.h — the one grammar for durations, rates and sizes, used by scenario
// files (--set), the lab (--rate, --delay) and every command-line size option.
//
//   duration  a non-negative decimal number and a unit: ns, us, ms, s        ("200ms", "1.5s")
//   rate      a positive decimal number and a unit: bit, kbit, mbit, gbit   ("100mbit") — SI
//             multiples (1 kbit = 1000 bit/s), as tc(8) spells them
//   size      a non-negative integer, optionally followed by a binary multiple: k, K, KiB or KB
//             = 1024; m, M, MiB or MB = 2^20; g, G, GiB or GB = 2^30 ("8k" = "8KiB" = "8KB" =
//             8192, "64M" = 67108864; KB is binary as in Windows' "8 KB" SO_SNDBUF; "8kb" is
//             refused: it reads as kilobits); a fraction must come out to whole bytes ("1.5k")
//
// Parsers return the value in base units (ns, bit/s, bytes) or an Error whose message names the
// text and the grammar; the caller prefixes the key or flag ("link.rate: ...").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/core/error.h"

namespace ackstall::core {

// The one default stall threshold of every tool (sim, scan, ttcp, the AFD emulator): a wait
// longer than this is a stall. 20 ms: far above a 100BASE-T or LAN RTT, far below any
// delayed-ACK timer (docs/STACKS.md §3-§5: 40-200 ms).
//
// StallThreshold names the one type a stall threshold has at every public boundary (the
// scanner's ScanOptions and report, the simulator's ExperimentConfig, analysis::CauseTraceSink,
// live::StallDetector, ttcp's Config, the AFD emulator); the command line converts its text once
// (tools/ackstall/stall_threshold_option.h). Printed in ms as stall_threshold_ms gives it.
using StallThreshold = std::chrono::nanoseconds;
inline constexpr StallThreshold kDefaultStallThreshold = std::chrono::milliseconds(20);
// The threshold in ms as the reports print it ("20", "0.5").
constexpr double stall_threshold_ms(StallThreshold t) noexcept {
  return std::chrono::duration<double, std::milli>(t).count();
}

inline constexpr std::string_view kDurationGrammar = "a number and ns, us, ms or s, e.g. 200ms";
inline constexpr std::string_view kRateGrammar = "a number and bit, kbit, mbit or gbit, e.g. 100mbit";
inline constexpr std::string_view kSizeGrammar =
    "bytes, or a number and k, M or G, binary (K, KiB, KB alike), e.g. 8k = 8192";

Result<std::int64_t> parse_duration_ns(std::string_view text);
Result<std::int64_t> parse_rate_bps(std::string_view text);
Result<std::uint64_t> parse_size(std::string_view text);

// The items of a SEP-separated list, empty ones included ("1,,2" -> "1", "", "2"; "" -> ""):
// sweep values (KEY=V1,V2) and list-valued keys ("220us,2ms") split the same way.
std::vector<std::string_view> split_list(std::string_view text, char sep = ',');

// The shortest exact spelling in each grammar (values >= 0): 200000000 ns -> "200ms", 100000000 -> "100mbit",
// 8192 -> "8k", 1000 -> "1000".
std::string format_duration_ns(std::int64_t ns);
std::string format_rate_bps(std::int64_t bps);
std::string format_size(std::uint64_t bytes);

}  // namespace ackstall::core
