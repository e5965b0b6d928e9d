// ackstall/pcap/capture_artefacts.h — what the capture itself made, not the hosts: a frame
// captured twice, or a datagram captured again as a router forwarded it.
//
// A mirrored switch port that copies both directions, or a capture on two interfaces (a bond and
// its member, a bridge and its port, `-i any`), records the same frame twice, microseconds apart.
// Read as traffic, every copy is a "retransmission" and the transfer a loss recovery (issue 37:
// "77 of 77 segments retransmitted" on such a capture). The rule: a frame is a duplicate of one
// seen before in the same direction when both carry the same sequence number, ACK number, flags,
// window and payload length, the same identity — the IPv4 Identification (RFC 791 §3.1; RFC 6864
// §4.1: unique per source for the datagram's lifetime, and a retransmission is a new datagram) or,
// where that is absent or zero, the TCP timestamp value (RFC 7323 §3: a retransmission carries
// the clock of its own send) — and arrive within kDuplicateWindowNs. A frame with neither
// identity is never called a duplicate (a retransmission within a millisecond on a LAN looks
// alike). Duplicates are counted per direction, warned about, and left out of every figure.
//
// A forwarded copy: a capture on a LAN where a router takes the sender's datagram and sends it
// back out on the same LAN (towards the next router) records the datagram twice, the second copy
// with the TTL one less (RFC 791 §3.2: each hop decrements it; RFC 1812 §5.3.1) and everything
// else the same, the router's queueing and forwarding time later (tcptrace's discard.solaris.dmp:
// every transmission twice 4.5-9.6 ms apart, IP ID equal, TTL 255 then 254). Read as traffic each
// copy is a retransmission (after the ACK has come back, a spurious one). The rule: a frame with
// the same IPv4 ID (non-zero), sequence number, ACK number, flags, window and payload length as
// one seen before in its direction, with a different TTL, within kForwardedWindowNs, is a
// forwarded copy. Both the ID and the TTL are required: a retransmission is a new datagram with
// its own ID on most stacks (RFC 6864 §4.1), and a stack that reuses IDs (or a zero ID) still
// sends every datagram with the same initial TTL from the same host. Counted per direction apart
// from duplicates, warned about, and left out of every figure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

struct DirectionReport;

// A copy of a frame arrives within this of the original: two capture interfaces or a mirror
// port add microseconds; no TCP sends the same datagram again this soon.
inline constexpr std::int64_t kDuplicateWindowNs = 1'000'000;
// A router's copy follows its original by the router's queueing and forwarding time: milliseconds
// (discard.solaris.dmp: 9.6 ms at most); the TTL, not the time, tells it from a retransmission.
inline constexpr std::int64_t kForwardedWindowNs = 100'000'000;

// What a frame is to the capture: traffic, a copy captured twice, a router's forwarded copy.
enum class Artefact : std::uint8_t { none, duplicate, forwarded };

// Per flow: the last few frames of each direction (a fixed ring: no allocation per packet).
class DuplicateFilter {
 public:
  // Whether P (from the flow's side A when from_a; ip_id the IPv4 Identification, 0 when IPv6 or
  // unknown; ttl as captured, 0 unknown) repeats a frame of its direction: captured twice (within
  // kDuplicateWindowNs, any TTL but a different one) or forwarded (a different TTL, within
  // kForwardedWindowNs). Counts it.
  Artefact classify(const TcpPacket& p, bool from_a, std::uint16_t ip_id, std::uint8_t ttl = 0) noexcept;
  std::uint64_t count(bool from_a) const noexcept { return count_[from_a ? 0 : 1]; }
  std::uint64_t forwarded(bool from_a) const noexcept { return forwarded_[from_a ? 0 : 1]; }

 private:
  struct Seen {
    std::int64_t time_ns = 0;
    std::uint32_t seq = 0, ack = 0, payload_len = 0, tsval = 0;
    std::uint16_t ip_id = 0, window = 0;
    std::uint8_t flags = 0, ttl = 0;
    bool has_tsval = false, valid = false;
  };
  static constexpr std::size_t kRing = 4;  // a copy may trail its original by a frame or two
  std::array<std::array<Seen, kRing>, 2> ring_{};
  std::array<std::size_t, 2> next_{};
  std::array<std::uint64_t, 2> count_{}, forwarded_{};
};

// The capture warning for a direction with duplicated frames, or nullopt.
std::optional<std::string> duplicate_frames_warning(const DirectionReport& d);
// The capture warning for a direction with forwarded copies, or nullopt.
std::optional<std::string> forwarded_copies_warning(const DirectionReport& d);

// Offloaded super-segments (issue 37): a capture on a host with segmentation offload (TSO/GSO at
// the sender, GRO at the receiver) records the stack's segments before the NIC cuts them (or
// after the receiver merges them): payloads larger than the MSS, which no wire carries (RFC 9293
// §3.7.1: the MSS bounds every segment). The writes' boundaries and their segment counts are then
// not in the capture: the diagnosis says so and draws no write-size, segment-count or Nagle
// conclusion (the "each 130966-byte write in 2 segments", with TCP_NODELAY offered).
bool offloaded_segments(const DirectionReport& d);
std::optional<std::string> offload_warning(const DirectionReport& d);

}  // namespace ackstall::pcap
