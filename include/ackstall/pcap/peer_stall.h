// ackstall/pcap/peer_stall.h — request/response: a direction that waits on its peer's stall says
// which stall, and the stalled direction says whom it holds up (issue 37).
//
// The scanner links a direction's waits for the peer's data (peer_reply) to the other
// direction's stalls that overlap them (src/pcap/reply_link.h; DirectionReport::waits_on_peer,
// delays_peer). Worded here: an evidence line in both directions' reports; in the waiting
// direction, where the peer's reply set its pace, the verdict names the peer's stall and the
// fixes point at it rather than at pipelining (which leaves a stalled request stalled); in the
// stalled direction, the verdict adds that its stalls also hold up the peer's reply.
#pragma once

#include <optional>
#include <string>

namespace ackstall::pcap {

struct DirectionReport;
struct Diagnosis;

// "request/response: 9 of its 10 waits for the peer's data overlap the peer's delayed-ACK stalls
// (0.360 s of 1.100 s) ..." (waiting side) or "... its delayed-ACK stalls also hold up the
// peer's reply ..." (stalled side): one line each, in that order; none without a link.
std::optional<std::string> waits_on_peer_evidence(const DirectionReport& d);
std::optional<std::string> delays_peer_evidence(const DirectionReport& d);

// The verdict and fixes, once word_facts has worded them (diagnosis.cc).
void report_peer_stall(const DirectionReport& d, Diagnosis& g);

}  // namespace ackstall::pcap
