// ackstall/pcap/triage.h — a capture of many connections, one row a connection, worst first: what
// a person opening a busy host's capture reads before any single report (Wireshark's
// Conversations and Expert Information: one row a conversation, severity first; tcptrace's
// one-line-per-connection summary).
//
// A connection (both directions) is judged on the direction whose problem costs the most time,
// else on its busiest direction (pcap/diagnosis.h). Connections with fewer than
// kTriageMinSegments data segments in both directions together are not judged (the rule of
// pcap/evidence.h: too few segments to tell a pattern from chance); they are counted, not listed
// one by one.
//
// Order: connections with a problem first, by the time the problem cost (largest first), then
// the rest by bytes; ties by the connection's endpoints, so the order is the same every run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/evidence.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

inline constexpr std::uint64_t kTriageMinSegments = kMinDataSegments;

struct TriageRow {
  const FlowReport* flow = nullptr;
  // The direction judged (index into flow->directions) and what its diagnosis names (the full
  // diagnosis is pcap::diagnose(judged()); rows keep only this, a capture may hold 10^5 of them).
  std::size_t direction = 0;
  std::optional<core::LimitCause> dominant, problem_cause;
  std::uint64_t bytes = 0;          // payload sequence space sent, both directions
  std::uint64_t data_segments = 0;  // both directions
  std::int64_t duration_ns = 0;     // the judged direction's transfer (first data to last ACK)
  double goodput_bytes_per_s = 0;   // the judged direction's
  std::int64_t lost_ns = 0;         // time the problem cost (0 when healthy)
  bool problem() const noexcept { return problem_cause.has_value(); }
  const DirectionReport& judged() const noexcept { return flow->directions[direction]; }
};

struct Triage {
  std::vector<TriageRow> rows;  // judged connections, worst first
  std::size_t tiny = 0;         // connections with data but under kTriageMinSegments segments
  std::size_t no_data = 0;      // connections with no payload in either direction
  std::size_t problems() const noexcept;
};

Triage triage(const std::vector<FlowReport>& flows);

}  // namespace ackstall::pcap
