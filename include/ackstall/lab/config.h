// ackstall lab: the lab's settings (`lab up` flags, kept in the state file for `lab run`) and
// its shaped link's rate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ackstall/core/error.h"
#include "ackstall/ttcp/config.h"

namespace ackstall::lab {

// Who decides when the receiver's ACKs reach the wire (`lab up --receiver-acks`).
enum class ReceiverAcks : std::uint8_t {
  kernel,   // the receiver's Linux kernel, as --ack-mode sets it
  windows,  // the kernel ACKs every segment (route quickack 1) and the middle host thins the
            // ACKs to Windows' rule: every 2nd segment, else 200 ms (lab/ack_thinner.h)
};
std::string_view to_string(ReceiverAcks v) noexcept;
std::optional<ReceiverAcks> parse_receiver_acks(std::string_view s) noexcept;

struct LabConfig {
  std::string rate = "100mbit";  // tc rate of the data direction (a -> b)
  bool timestamps = true;        // net.ipv4.tcp_timestamps in both namespaces
  ttcp::AckMode ack_mode = ttcp::AckMode::normal;  // the receiver's default for `lab run`
  std::int64_t queue_bytes = 0;  // > 0: tbf "limit" in bytes (a tiny queue forces drops)
  int mtu = 1500;                // both veth ends (9000: jumbo frames, MSS 8948 with timestamps)
  // > 0: a third host, ackstall-m, carries the path: a delay line adds this round-trip time
  // (half each way) and the shaper sits on its way out to b, so its drops are losses on the path.
  std::int64_t rtt_ns = 0;
  // windows: the middle host is there even without --rtt (a delay line of 0 ms, the thinner in it).
  ReceiverAcks receiver_acks = ReceiverAcks::kernel;
  // > 0: the delay line drops each write's last segment (PSH) of new data from a to b with this
  // probability (0..1], drawn from drop_seed's stream (lab/tail_drop.h: tail loss by construction);
  // brings up the middle host even without --rtt.
  double drop_tails = 0;
  std::uint64_t drop_seed = 1;
  // Whether the path has the middle host ackstall-m.
  bool middle() const noexcept { return rtt_ns > 0 || receiver_acks != ReceiverAcks::kernel || drop_tails > 0; }
  friend bool operator==(const LabConfig&, const LabConfig&) = default;
};

// A tail-drop probability (`lab up --drop-tails`): a decimal number in [0, 1], or what is wrong.
core::Result<double> parse_drop_probability(std::string_view text);

// A tc rate in core's rate grammar (core/units.h: "100mbit", "1.5gbit", "500kbit") within
// 8kbit..100gbit, in bits per second.
core::Result<std::int64_t> parse_rate(std::string_view rate);

// Goodput ceiling of the shaped link in bytes/s for a 1500-byte MTU over Ethernet framing
// (core/link_framing.h): rate/8 * 1460 / 1538, with timestamps 1448 / 1538.
double line_rate_bytes_per_s(std::int64_t rate_bps, bool timestamps);

}  // namespace ackstall::lab
