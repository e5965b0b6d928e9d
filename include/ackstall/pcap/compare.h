// ackstall/pcap/compare.h — two captures of the same service, before and after a change: which
// connections match, where their time went in each, and whether the problem is gone.
//
// Matching: a connection is named by its data direction's (the one with more bytes acknowledged)
// endpoints without the client's port
// (ephemeral, new on every run: RFC 6056) — sender address, receiver address and the service
// port, the lower of the two ports (services listen on registered ports below the ephemeral
// range, IANA RFC 6335 §6). Connections with the same name in one capture are pooled: their
// bytes, durations and per-cause times add up. Only judged connections count (pcap/triage.h);
// a name present in only one capture is listed as unmatched.
//
// Verdict of a matched pair, from the before side's problem P (pcap/diagnosis.h decides what is a
// problem: a cause of at least kProblemShare of the time, delayed ACKs only as a pattern of two
// or more, and only where removing it could raise the goodput):
//   gone       the after side has no problem cause;
//   reduced    P is still the problem, at less than half its before share;
//   unchanged  P is still the problem, its share and the goodput (within 10 %) about the same;
//   changed    otherwise (another problem now, or goodput moved without P changing).
// With no problem before: "healthy" when after has none either, else "new problem".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

// One side's pooled connections of one name.
struct ServiceSide {
  std::size_t connections = 0;
  std::uint64_t bytes = 0;           // payload acknowledged, data direction
  std::int64_t duration_ns = 0;      // summed transfer time
  core::CauseTimes cause_ns{};       // summed per cause
  std::optional<core::LimitCause> problem;  // the costliest problem cause >= kProblemShare
  double goodput_bytes_per_s() const noexcept;
  double share(core::LimitCause c) const noexcept;
};

enum class CompareVerdict : std::uint8_t { gone, reduced, unchanged, changed, healthy, new_problem };
std::string_view to_string(CompareVerdict v) noexcept;

struct ServiceComparison {
  SocketAddr sender, receiver;  // ports: the service's port on its side, 0 on the client's
  ServiceSide before, after;
  CompareVerdict verdict = CompareVerdict::unchanged;
  std::optional<core::LimitCause> problem;  // the one the verdict speaks of (before's, else after's)
};

struct Comparison {
  std::vector<ServiceComparison> matched;  // by before's bytes, largest first
  std::vector<std::string> only_before, only_after;  // names: "10.0.0.1 -> 10.0.0.2:5001"
};

Comparison compare(const std::vector<FlowReport>& before, const std::vector<FlowReport>& after);

// "10.0.0.1 -> 10.0.0.2:5001": a service name as compare() matches it.
std::string service_name(const SocketAddr& sender, const SocketAddr& receiver);

}  // namespace ackstall::pcap
