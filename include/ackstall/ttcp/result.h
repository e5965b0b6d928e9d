// ackstall/ttcp/result.h — what one end of a ttcp transfer measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/net/afd_emulator.h"
#include "ackstall/net/path_probe.h"

namespace ackstall::ttcp {

// Bytes moved in [start, end) seconds since the transfer began (--interval).
struct Interval {
  double start = 0, end = 0;
  std::uint64_t bytes = 0;
  std::uint64_t stalls = 0;  // calls in it that waited longer than Config::stall_threshold
};

struct TransferResult {
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::uint64_t calls = 0;                 // application sends / reads
  std::vector<Interval> intervals;
  // Stalls: application sends (-t) or reads (-r) that took longer than Config::stall_threshold — on
  // the transmitter a send held by the send buffer or the emulated quota, on the receiver a wait
  // for data. The longest such call, in ms, stalled or not.
  std::uint64_t stalls = 0;
  double longest_call_ms = 0;
  int interrupted = 0;                     // the signal that stopped the transfer early (0: none)
  // -t: the connection was lost (the receiver stopped, a reset): the counts are the transfer so
  // far and this says why ("connection to ... lost after N bytes: Broken pipe").
  std::optional<core::Error> lost;
  std::string local, remote;               // the connection's addresses ("10.77.0.1:40000")
  std::optional<net::AfdStats> afd;        // -t with afd_quota: the emulated quota's counters
  // -t: the connection's MSS and timestamps from TCP_INFO (Linux) / SIO_TCP_INFO (Windows 10
  // 1703+) after the transfer; empty where the OS does not say (Wine), with the reason.
  std::optional<std::int64_t> mss;
  bool timestamps = false;
  std::string tcp_info_error;
  std::optional<net::Finding<std::int64_t>> isb;  // -t following the ISB (isb; auto on Windows): the last reading
  double mb_per_s() const { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0; }
};

}  // namespace ackstall::ttcp
