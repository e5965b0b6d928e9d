// ackstall lab: the delay line, a user-space cable between two interfaces of the middle host
// (lab/netns.h, `lab up --rtt`). This kernel has no netem; the line reads every frame arriving
// on one interface through an AF_PACKET socket (packet(7)) and writes it, unchanged, out of the
// other after the one-way delay (DelayQueue), in both directions. PACKET_VNET_HDR carries each
// frame's checksum-offload state across (a veth frame's TCP checksum is left to the receiver:
// packet(7), virtio_net_hdr), so nothing is recomputed; PACKET_IGNORE_OUTGOING keeps the line
// from reading what it wrote. With windows_acks the receiver's ACKs pass an AckThinner first;
// with drop_tails a TailDropper drops writes' last segments on their way from a to b.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "ackstall/core/error.h"

namespace ackstall::lab {

struct DelayLineConfig {
  std::string interface_a;  // frames arriving here leave through interface_b, and back
  std::string interface_b;
  std::chrono::nanoseconds one_way{0};
  // Thin the ACKs arriving on interface_b (the receiver's side) to Windows' rule before they
  // enter the line (lab/ack_thinner.h); frames from interface_a tell it where segments end.
  bool windows_acks = false;
  // > 0: frames from interface_a (the data side) that end a write (PSH) are dropped with this
  // probability, each first transmission drawn from drop_seed's stream (lab/tail_drop.h).
  double drop_tails = 0;
  std::uint64_t drop_seed = 1;
};

// Runs the line in the calling process's network namespace until SIGTERM or SIGINT (then
// returns success). Calls `ready` once both sockets are bound. An Error when a socket cannot be
// opened or bound (no root, no such interface) or a read fails.
core::Result<void> run_delay_line(const DelayLineConfig& cfg, void (*ready)());

}  // namespace ackstall::lab
