// ackstall lab: the delay line's tail drop (sans-IO, `lab up --drop-tails P`), tail loss by
// construction. A write's last segment is the one a sender marks PSH: Linux sets it on the
// segment that carries a write's last byte (tcp_push after tcp_sendmsg; also, mid-write, when
// half the peer's largest window has gone out unpushed: tcp_mark_push), BSD and Winsock alike
// (docs/STACKS.md §1). Losing that segment leaves nothing after it to draw duplicate ACKs, so the
// sender cannot fast-retransmit (RFC 5681 §3.2): it recovers by a tail-loss probe (RACK-TLP,
// RFC 8985 §7) or its retransmission timeout (RFC 6298), the cost tail loss has.
//
// The decision: a frame from the data side (a -> b) is a candidate when it is TCP, carries data,
// has PSH and no SYN/FIN/RST, is one segment (not a GSO frame of several: its PSH is only the
// last one's) and ends beyond every byte the line has seen of its flow (new data: a
// retransmission always passes, so each lost tail is lost once). Each candidate draws from a
// seeded stream (splitmix64, the same on every platform): dropped when the draw is below P.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>

#include "ackstall/lab/ack_thinner.h"

namespace ackstall::lab {

// The tail of a write, new to its flow: PSH, data, no SYN/FIN/RST, one segment.
bool is_write_tail(const TcpFrame& t) noexcept;

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): the n-th draw of SEED's stream as a double in [0, 1) (53 bits).
double seeded_draw(std::uint64_t seed, std::uint64_t n) noexcept;

class TailDropper {
 public:
  // Drops each candidate with probability `probability` (0..1) drawn from SEED's stream.
  TailDropper(double probability, std::uint64_t seed) noexcept : probability_(probability), seed_(seed) {}
  // A frame from a (the data side): true when the line drops it.
  bool drop(std::span<const std::byte> frame);
  std::uint64_t candidates() const noexcept { return draws_; }
  std::uint64_t dropped() const noexcept { return dropped_; }

 private:
  double probability_;
  std::uint64_t seed_;
  std::uint64_t draws_ = 0, dropped_ = 0;
  std::map<FrameFlowKey, std::uint32_t> seen_end_;  // per flow: the end of the highest data seen
};

}  // namespace ackstall::lab
