// ackstall lab: two network namespaces joined by a veth pair, the data direction shaped to exact
// 100BASE-T goodput (docs/STACKS.md §7). Needs root (CAP_NET_ADMIN + CAP_SYS_ADMIN).
//
//   ackstall-a (10.77.0.1, ackstall-va)  ==veth==  ackstall-b (10.77.0.2, ackstall-vb)
//   ackstall-va: gso_max_segs 1, root qdisc "stab overhead 24 linklayer ethernet tbf rate R
//   burst 3100 latency 20ms" (or "limit Q" with a tiny queue that forces drops): Ethernet
//   framing (preamble, FCS, gap) is charged per wire frame, so 1500-byte frames cost 1538 bytes.
//   Both namespaces: net.ipv4.tcp_timestamps as configured.
//
// With --rtt (LabConfig::rtt_ns > 0) a third host carries the path, as a router would:
//
//   ackstall-a (va) ==veth== (ma) ackstall-m (mb) ==veth== (vb) ackstall-b
//
// In ackstall-m a delay line (lab/delay_line.h, a process of its own) copies every frame from
// ma to mb and back after half the round-trip time each way; the shaper moves from va to mb, so
// a queue that overflows there loses segments on the path (the sender's host sees no local drop
// and must retransmit). a and b keep their addresses and interfaces; captures are taken alike.
//
// With --receiver-acks windows (LabConfig::receiver_acks) the middle host is there even without
// --rtt (a 0 ms line): b's routes get `quickack 1`, so b ACKs every segment, and the line passes
// b's ACKs through an AckThinner (lab/ack_thinner.h) that forwards them by Windows' rule.
//
// Names carry the project prefix so a stale lab (a crashed run) is recognisable: lab_up()
// removes one first (and says so), and removes everything it made if any step fails. The lab's
// settings are kept in /run/ackstall-lab.conf for `lab run` (lab/state_file.h).
// The parts: lab/process.h (running ip/tc), lab/config.h (settings, rate), lab/state_file.h,
// lab/signal_guard.h, lab/transfer_pair.h (one transfer across the lab).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ackstall/core/error.h"
#include "ackstall/lab/config.h"
#include "ackstall/lab/process.h"

namespace ackstall::lab {

inline constexpr const char* kNsA = "ackstall-a";  // the transmitter's host
inline constexpr const char* kNsB = "ackstall-b";  // the receiver's host
inline constexpr const char* kVethA = "ackstall-va";
inline constexpr const char* kVethB = "ackstall-vb";
inline constexpr const char* kNsM = "ackstall-m";      // the path's middle (with --rtt only)
inline constexpr const char* kVethMA = "ackstall-ma";  // ackstall-m's end towards a
inline constexpr const char* kVethMB = "ackstall-mb";  // ackstall-m's end towards b (shaped)
inline constexpr const char* kAddrA = "10.77.0.1";
inline constexpr const char* kAddrB = "10.77.0.2";
// IPv6 (unique local, RFC 4193), added without duplicate address detection so it is usable at once.
inline constexpr const char* kAddr6A = "fd77::1";
inline constexpr const char* kAddr6B = "fd77::2";
inline constexpr const char* kStateFile = "/run/ackstall-lab.conf";

using Log = std::function<void(const std::string&)>;
using Status = core::Result<void>;

bool have_root() noexcept;
// An Error "lab needs root ..." when not root.
Status check_root();

bool lab_present();  // any of the lab's namespaces exists
Status lab_up(const LabConfig& cfg, const Log& log);
// Idempotent: stops the delay line (every process in ackstall-m), removes the namespaces (and
// the veths with them) and the state file.
Status lab_down();
// The running lab's settings: nullopt when no lab is up; an Error when its state file is
// missing, corrupt or truncated.
core::Result<std::optional<LabConfig>> read_state();
// Moves the calling thread into namespace `name` (setns); sockets it makes live there.
Status enter_namespace(const std::string& name);
// The same, and the calling thread to SCHED_FIFO at `realtime_priority` (the lab's transfer
// threads, lab run --realtime on).
Status enter_namespace(const std::string& name, int realtime_priority);

// Removes the lab when it goes out of scope (every return and exception path).
class LabGuard {
 public:
  LabGuard() = default;
  LabGuard(const LabGuard&) = delete;
  LabGuard& operator=(const LabGuard&) = delete;
  ~LabGuard() { (void)lab_down(); }
};

// Ctrl-C (SIGINT) or kill (SIGTERM) during a lab operation must not leave the namespaces behind.
// While an InterruptGuard lives, both signals are taken by a SignalGuard (lab/signal_guard.h):
// on one it removes the lab (waiting for a lab_up in progress to finish first, so nothing is
// created after the removal), prints "ackstall: WHAT: interrupted by SIGINT; lab removed" and
// ends the process with 128 + the signal (130, 143).
class InterruptGuard {
 public:
  explicit InterruptGuard(std::string what);
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  ~InterruptGuard();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ackstall::lab
