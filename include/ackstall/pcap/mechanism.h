// ackstall/pcap/mechanism.h — the delayed-ACK stall's mechanism, worded once.
//
// A send is cut into segments; one is left alone (the last of an odd count, or the one before
// the tail Nagle holds); the receiver holds that lone segment's ACK for its delayed-ACK timer
// (RFC 1122 4.2.3.2: an ACK for at least every second full segment, a lone one delayed); the
// sender, at its in-flight limit, waits for that ACK. The scanner fills this from a capture's
// figures (pcap::diagnose), the simulator from a run's configuration (analysis::explain); word()
// is the one sentence both print. Fields a source does not know stay empty and are not worded.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace ackstall::pcap {

struct LoneSegmentHold {
  std::uint64_t in_flight_limit = 0;       // bytes: the most the sender had in flight
  bool quota_per_send = false;             // that limit is SO_SNDBUF charged per whole send (AFD)
  std::optional<std::uint64_t> write_size;  // bytes of one application send
  std::optional<std::uint32_t> segments;   // its segments (its last piece's, when cut)
  std::string cut_by;                      // the chunking policy that cut the send ("seed"), if any
  std::uint64_t pieces = 0;                //   into this many pieces
  // Nagle's hold of the send's sub-MSS tail until everything before it is ACKed (RFC 896): the
  // rule's name ("classic") and the tail's bytes; the lone segment is then the one before it.
  std::string nagle;
  std::uint64_t nagle_tail = 0;
  bool lone = true;                        // one segment is known to be alone (else: the last)
  // The receiver: its stack and how many segments it ACKs at once (0: not said), its delayed-ACK
  // timer (a capture: the median hold beyond the path), `and up` for Linux's ATO minimum.
  std::string receiver;
  std::uint32_t acks_every = 0;
  std::chrono::nanoseconds hold{0};
  bool hold_minimum = false;
  // The waits: `holds` were that hold, of `waits` past the threshold (a capture), or taking
  // `held` in all (a run).
  std::uint64_t holds = 0;
  std::optional<std::uint64_t> waits;
  std::optional<std::chrono::nanoseconds> held;
};

// "The sender stops with at most 8192 bytes in flight (each 8192-byte write in 6 segments) and
// the receiver holds the ACK of the lone last segment for its delayed-ACK timer (~200.0 ms):
// 30 of 31 waits are that hold."
std::string word(const LoneSegmentHold& m);

}  // namespace ackstall::pcap
