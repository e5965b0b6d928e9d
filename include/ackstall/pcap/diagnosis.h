// ackstall/pcap/diagnosis.h — what a flow direction's capture says about what limits the
// transfer, what that costs, and the fixes that fit the stacks in the capture, inferred from the
// capture alone (a DirectionReport), each claim with its evidence. Stack matches are "fits",
// never "is": a capture cannot name the stack.
//
//   accounts         where the time went: the report's per-cause times (core/limit_cause.h) as
//                    shares of the transfer, largest first; they sum to 100 %;
//   verdict          the dominant cause; the problem cause (loss, the receiver's window, the send
//                    buffer or quota, delayed-ACK stalls, gaps in the capture) if it costs at
//                    least kProblemShare of the time, with the goodput its removal would at most
//                    give (the bytes over the time left); else "healthy" (the path, or the
//                    application, sets the pace). A single wait is not a pattern: delayed-ACK
//                    stalls need at least two;
//   stacks           each side's stack family from the initial TTL (64: Linux, BSD, macOS;
//                    128: Windows; RFC 1700's default TTL per system, as in p0f) and the
//                    receiver's delayed-ACK hold (docs/STACKS.md §1 Windows 200 ms, §3 OpenBSD
//                    200 ms / FreeBSD 100 ms, §4 Linux 40 ms);
//   fixes            for the problem cause, those that apply to the stacks found, best first, each
//                    with its source; what would not help, and why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/mechanism.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

// A cause costing at least this share of the transfer's time is a problem worth fixing.
inline constexpr double kProblemShare = 0.05;

struct CauseShare {
  core::LimitCause cause = core::LimitCause::network;
  std::int64_t ns = 0;
  double share = 0;  // of the transfer's duration, 0..1
};

enum class StackFamily : std::uint8_t { unknown, linux_, bsd, windows, unix_like };
std::string_view to_string(StackFamily f) noexcept;

struct StackGuess {
  StackFamily family = StackFamily::unknown;
  std::string evidence;  // "initial TTL 128", "delayed-ACK hold ~42 ms fits Linux"
};

struct Diagnosis {
  std::uint32_t mss = 0;                 // effective (payload per full segment), else the largest segment
  std::uint64_t in_flight_limit = 0;     // bytes (max outstanding at stalls, else overall)
  std::uint64_t window_offered = 0;      // bytes
  std::optional<std::uint64_t> write_size;     // most common write, bytes (none when the capture has gaps)
  std::optional<std::uint32_t> segments_per_write;
  std::uint64_t writes = 0;
  std::vector<std::string> timer_fits;   // stacks whose delayed-ACK timer fits the median hold
  std::vector<std::size_t> chunk_plan;   // the seed policy's plan for write_size (empty: none)
  std::vector<CauseShare> accounts;      // nonzero causes, largest first; shares sum to 1
  std::optional<core::LimitCause> dominant;
  std::optional<core::LimitCause> problem;  // the costliest problem cause >= kProblemShare
  bool healthy = false;
  double goodput_without_problem = 0;    // bytes/s: an upper bound with the problem's time removed
  StackGuess sender_stack, receiver_stack;
  std::vector<std::string> capture_warnings;  // one line each: what the capture lacks
  std::optional<std::string> too_little;      // why the capture is too little to judge (evidence.h)
  std::vector<std::string> evidence;     // one line each: limit, pattern, Nagle, receiver, path
  std::optional<LoneSegmentHold> lone_segment_hold;  // the problem is delayed ACKs: their mechanism
  // Request/response (peer_stall.h): this direction's waits for the peer's data that are the other
  // direction's stalls, and this direction's stalls that the other's waits are.
  std::optional<PeerStallLink> waits_on_peer, delays_peer;
  std::string mechanism;                 // the verdict, one or two sentences
  std::vector<std::string> fixes;        // ranked, best first
  std::vector<std::string> would_not_help;
};

// Finds the facts (figures, accounts, problem, stacks, mechanism), then words them (warnings,
// evidence, mechanism, fixes).
Diagnosis diagnose(const DirectionReport& d);

}  // namespace ackstall::pcap
