// ackstall/sim/experiment.h — the simulator's public, programmatic experiment API.
//
// One call runs one deterministic discrete-event simulation of a single TCP connection:
//
//     ackstall::sim::ExperimentConfig cfg;          // defaults = the seed's setup (config.h)
//     cfg.app.transmitter.chunking = ackstall::core::PolicyKind::seed;
//     ackstall::sim::Summary s = *ackstall::sim::run_experiment(cfg);  // s.goodput_mib_s ~ 9-11
//
// Contract:
//   * Pure function of (config, config.seed): same inputs, bit-identical Summary and trace.
//     No globals: any number of simulations may run concurrently on different threads.
//   * Memory is O(1) in the number of writes and bytes (no per-byte or per-write state) unless
//     the caller's TraceSink stores frames.
//   * Time is integer nanoseconds (`Nanos`); t = 0 is when the initiator sends its SYN.
//   * `run_experiment` returns validate(cfg)'s error (its message names the field) for a config
//     that cannot run; it never throws.
//   * Compatibility: as config.h; Summary fields are only ever added.
//
// The configuration vocabulary is config.h, the trace types trace.h (both included here).
#pragma once

#include "ackstall/core/error.h"
#include "ackstall/core/chunk_policy.h"
#include "ackstall/sim/config.h"
#include "ackstall/sim/time.h"
#include "ackstall/sim/trace.h"

#include <cstdint>

namespace ackstall::sim {

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

struct StallTotal {
  Nanos time = Nanos::zero();
  std::uint64_t count = 0;
};

// One total per kind the simulator marks (core::kSimulatorStallKinds).
struct StallTotals {
  StallTotal delayed_ack;
  StallTotal nagle_hold;
  StallTotal quota_wait;
  StallTotal wakeup;
  StallTotal select_teardown;
  // The total of `kind`; nullptr for a kind only the scanner finds.
  const StallTotal* of(StallKind kind) const noexcept;
  StallTotal* of(StallKind kind) noexcept {
    return const_cast<StallTotal*>(static_cast<const StallTotals&>(*this).of(kind));
  }
};

struct Summary {
  bool completed = false;             // every byte read and the run ended before time_limit
  std::int64_t bytes_requested = 0;   // writes * write_len
  std::int64_t bytes_delivered = 0;   // read by the receiving application
  Nanos duration = Nanos::zero();     // t = 0 (SYN) -> last byte read by the application
  Nanos connected_at = Nanos::zero(); // handshake complete at the sender
  double goodput_mib_s = 0;           // bytes_delivered / duration / 2^20
  double ceiling_mib_s = 0;           // rate * mss / wire bytes of a full frame / 2^20
  std::int32_t mss = 0;               // payload bytes of a full data segment (after options)
  bool timestamps = false;            // negotiated
  std::int64_t sndbuf = 0;            // SO_SNDBUF the sender ran with: send_buffer.size, or robust's raise
  core::SocketParams chunk_params{};  // what the sender's chunk policy cut by, as the run ended
  StallTotals stalls{};               // waits longer than cfg.stall_threshold, by kind
  StallTotals short_waits{};          // waits up to the threshold (a healthy run's quota waits)
  std::uint64_t data_segments = 0;    // segments carrying payload (sender -> receiver)
  std::uint64_t pure_acks = 0;        // receiver -> sender segments without payload/SYN/FIN
  std::uint64_t window_updates = 0;   // subset of pure_acks sent because a read opened the window
  std::uint64_t delayed_acks = 0;     // ACKs sent by an expiring delayed-ACK timer
  std::uint64_t retransmits = 0;      // data segments sent again
  std::uint64_t rto_fires = 0;        // retransmission timeouts (0 on a clean link)
  std::uint64_t drops = 0;            // frames dropped by a full queue
  std::uint64_t send_calls = 0;       // Winsock/POSIX send calls made by the transmitter
  std::uint64_t would_block = 0;      // of which returned WSAEWOULDBLOCK / EAGAIN
  std::uint64_t read_calls = 0;
  std::uint64_t events = 0;           // simulator events processed
};

// Runs one experiment to completion (or time_limit); fails only when validate(cfg) does.
// Thread-safe: touches only its arguments.
core::Result<Summary> run_experiment(const ExperimentConfig& cfg, TraceSink* trace = nullptr);

}  // namespace ackstall::sim
