// ackstall/pcap/evidence.h — whether a direction's capture holds enough to judge what limits it.
//
// A cause is a pattern over round trips: a window filled round after round, a flight that stays
// flat, a wait that recurs. A handful of segments, a transfer over in fewer than a few round trips,
// or data whose ACKs the capture never saw show no pattern, and a diagnosis of them names whatever
// rule happens to fire (issue 37: "Problem: the receiver's window" for 3-6 segments on loopback,
// "53 % of 0.000 s"; the sending application "92 % of the time" on a capture of one direction).
// The rule: fewer than kMinDataSegments data segments, fewer than kMinRoundTrips of the path's
// round trip (the handshake's, else the shortest data-to-ACK time) in the transfer, or no ACK
// for its data is too little to judge: the report gives the figures it has and names no problem.
// A zero window the receiver announced is its own statement, not a pattern: it is judged however
// few the segments (tcp_zerowindowdead of Practical Packet Analysis: one segment, 23 s shut).
// T-RAT (Zhang, Breslau, Paxson, Shenker, SIGCOMM 2002) likewise classifies only flows of enough
// packets and round trips.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ackstall::pcap {

struct DirectionReport;

inline constexpr std::uint64_t kMinDataSegments = 10;
inline constexpr std::int64_t kMinRoundTrips = 4;

// Why the capture is too little to judge (one clause, "only 6 data segments"), or nullopt.
std::optional<std::string> too_little_evidence(const DirectionReport& d);

// Judged, but on thin evidence (issue 37): fewer than kSettleSegments data segments or fewer than
// kSettleRoundTrips round trips. The verdict then says "Likely ..." and what would settle it: the
// clause ("on 14 data segments over 5.2 round trips; ..."), or nullopt. (A pattern seen over three
// times the least that is judged is no longer one a few segments could fake.)
inline constexpr std::uint64_t kSettleSegments = 3 * kMinDataSegments;
inline constexpr std::int64_t kSettleRoundTrips = 3 * kMinRoundTrips;
std::optional<std::string> thin_evidence(const DirectionReport& d);

// Part of it: a capture started mid-stream with neither SYN (no window scale, MSS or handshake
// round trip) whose time went mostly to the flight's limit (the receiver's window, the sender's
// buffer, the application's pace or the path) without loss, a zero window, a delayed-ACK stall,
// a full path or the sender's stops fitted to the window's scale (DirectionReport::
// mid_stream_limit, src/pcap/scale_fit.h) to tell them apart: the reason, or nullopt.
std::optional<std::string> mid_stream_flight(const DirectionReport& d);

}  // namespace ackstall::pcap
