// ackstall/pcap/diagnosis.h — what a flow direction's capture says about the sender, the
// receiver and the fix, inferred from the capture alone (a DirectionReport), each claim with
// its evidence. Timer matches are "fits", never "is": a capture cannot name the stack.
//
//   in-flight limit  the most bytes outstanding whenever the sender went idle (the stalls),
//                    against the largest window the receiver offered: far below it means the
//                    sender itself stopped (send buffer, or Winsock's per-send quota: STACKS §1);
//   send pattern     write boundaries from PSH (STACKS §1: Winsock sets PSH on each send's last
//                    segment; BSD/Linux when the write's last byte leaves), the usual write size,
//                    segments per write and their parity (odd: one segment is left alone per
//                    write with a receiver that ACKs every second segment, STACKS §3);
//   Nagle holds      sub-MSS segments sent only once everything before them was ACKed (RFC 896);
//   receiver         its ACK rule (every 2nd / every / stretch), its delayed-ACK timer (median
//                    of the delayed_ack stalls) and the stacks whose timer it fits (STACKS §1
//                    Windows 200 ms, §3 OpenBSD 200 ms / FreeBSD 100 ms / pre-2001 BSD 0-200 ms,
//                    §4 Linux 40 ms minimum);
//   verdict          the mechanism in one sentence, fixes ranked by expected effect (with the
//                    seed's chunk plan, core/chunk_policy.h, for the observed MSS, limit and write
//                    size), and what would not help.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

struct Diagnosis {
  std::uint32_t mss = 0;                 // effective (payload per full segment), else the largest segment
  std::uint64_t in_flight_limit = 0;     // bytes (max outstanding at stalls, else overall)
  std::uint64_t window_offered = 0;      // bytes
  std::optional<std::uint64_t> write_size;     // most common write, bytes
  std::optional<std::uint32_t> segments_per_write;
  std::uint64_t writes = 0;
  std::vector<std::string> timer_fits;   // stacks whose delayed-ACK timer fits the median
  std::vector<std::size_t> chunk_plan;   // the seed policy's plan for write_size (empty: none)
  std::vector<std::string> evidence;     // one line each: limit, pattern, Nagle, receiver
  std::string mechanism;                 // one sentence
  std::vector<std::string> fixes;        // ranked, best first
  std::vector<std::string> would_not_help;
};

Diagnosis diagnose(const DirectionReport& d);

}  // namespace ackstall::pcap
