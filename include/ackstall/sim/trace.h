// ackstall/sim/trace.h — what a simulation reports while it runs: every frame put on the wire
// and every stall, through a TraceSink (experiment.h's run_experiment takes one).
#pragma once

#include "ackstall/core/stall_kind.h"
#include "ackstall/core/tcp_flags.h"
#include "ackstall/core/tcp_options.h"
#include "ackstall/sim/time.h"

#include <cstdint>
#include <string_view>

namespace ackstall::sim {

// The stall kinds are core's one vocabulary (core/stall_kind.h); the simulator marks those the
// table says it sees (delayed_ack: a receiver timer run to expiry, arm -> fire; nagle_hold: hold ->
// send; quota_wait: WOULDBLOCK -> FD_WRITE; wakeup: FD_WRITE -> the thread runs; select_teardown).
using core::StallKind;
inline constexpr const auto& kStallKinds = core::kSimulatorStallKinds;

enum class Direction : std::uint8_t { sender_to_receiver, receiver_to_sender };

namespace tcp_flag = core::tcp_flag;  // core/tcp_flags.h

// One frame as it goes on the wire (a capture at the sending NIC), with enough of the TCP/IP
// header to write a pcap. Payload bytes themselves are not modelled (write zeros).
struct WireFrame {
  Nanos time;                    // first bit on the wire at the sending NIC
  Nanos arrival;                 // last bit at the receiving NIC (== time if dropped)
  Nanos reported;                // simulated time of the report: no later frame has time < reported
  Direction dir = Direction::sender_to_receiver;
  std::uint32_t src_ip = 0, dst_ip = 0;
  std::uint16_t src_port = 0, dst_port = 0;
  std::uint32_t seq = 0;         // on-the-wire sequence number (ISS + offset, mod 2^32)
  std::uint32_t ack = 0;         // on-the-wire acknowledgment number (valid with ACK flag)
  std::uint8_t flags = 0;        // tcp_flag bits
  std::uint16_t window = 0;      // window field as on the wire (already shifted right)
  core::TcpOptions options{};    // as on the wire (core/tcp_options.h)
  std::uint32_t payload_len = 0;
  std::uint32_t ip_len = 0;      // IPv4 total length: 20 + TCP header with options + payload
  std::uint32_t wire_bytes = 0;  // bytes of link time including framing
  bool retransmit = false;
  bool dropped = false;          // queue full: never reached the wire
};

struct StallMarker {
  StallKind kind;
  Nanos begin;
  Nanos end;
};

// Receives every frame in the order frames start transmission, and every stall once it ends.
// Called synchronously from the simulation's thread; must not call back into the simulator.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void on_frame(const WireFrame& frame) = 0;
  virtual void on_stall(const StallMarker& /*stall*/) {}
};

}  // namespace ackstall::sim
