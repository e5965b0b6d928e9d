// ackstall/pcap/look_alike.h — causes the wire cannot tell apart (issue 37).
//
// A per-send quota (Winsock's AFD SO_SNDBUF, or `ttcp --emulate-afd`) and Nagle (RFC 896) both
// leave a write's short tail unsent until the ACK of what went before it, and a delayed-ACK
// receiver holds that ACK: the same trace on the wire (a sub-MSS segment that leaves only when
// nothing is in flight). Disabling Nagle fixes only the second (a quota's stalls stay when rerun
// with TCP_NODELAY: docs/SCAN.md, the rules table). Where both fit, the diagnosis says so, names the check
// that separates them, and ranks first the fixes that cover both.
#pragma once

#include <optional>
#include <string>

namespace ackstall::pcap {

struct DirectionReport;
struct Diagnosis;

// The sentence saying which two causes look alike and how to tell them apart, or nullopt when the
// capture tells (no Nagle-like hold; or less than a full segment in flight before the tail,
// which no quota of a segment or more explains).
std::optional<std::string> quota_or_nagle(const DirectionReport& d, const Diagnosis& g);

// With quota_or_nagle: the TCP_NODELAY fix goes after the fixes that cover both (whole-MSS sends,
// the receiver's ACK), worded as the check's outcome; the sentence is appended to the mechanism.
void report_quota_or_nagle(const DirectionReport& d, Diagnosis& g);

}  // namespace ackstall::pcap
