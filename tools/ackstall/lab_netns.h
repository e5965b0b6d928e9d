// ackstall lab: two network namespaces joined by a veth pair, the data direction shaped to exact
// 100BASE-T goodput (docs/STACKS.md §7). Needs root (CAP_NET_ADMIN + CAP_SYS_ADMIN).
//
//   ackstall-a (10.77.0.1, ackstall-va)  ==veth==  ackstall-b (10.77.0.2, ackstall-vb)
//   ackstall-va: gso_max_segs 1, root qdisc "stab overhead 24 linklayer ethernet tbf rate R
//   burst 3100 latency 20ms" (or "limit Q" with a tiny queue that forces drops): Ethernet
//   framing (preamble, FCS, gap) is charged per wire frame, so 1500-byte frames cost 1538 bytes.
//   Both namespaces: net.ipv4.tcp_timestamps as configured.
//
// Names carry the project prefix so a stale lab (a crashed run) is recognisable: lab_up()
// removes one first (and says so), and removes everything it made if any step fails. The lab's
// settings are kept in /run/ackstall-lab.conf for `lab run`.
#pragma once

#include <cstdint>
#include "ackstall/core/error.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ttcp_run.h"

namespace ackstall::tools::lab {

inline constexpr const char* kNsA = "ackstall-a";  // the transmitter's host
inline constexpr const char* kNsB = "ackstall-b";  // the receiver's host
inline constexpr const char* kVethA = "ackstall-va";
inline constexpr const char* kVethB = "ackstall-vb";
inline constexpr const char* kAddrA = "10.77.0.1";
inline constexpr const char* kAddrB = "10.77.0.2";
inline constexpr const char* kStateFile = "/run/ackstall-lab.conf";

struct LabConfig {
  std::string rate = "100mbit";  // tc rate of the data direction (a -> b)
  bool timestamps = true;        // net.ipv4.tcp_timestamps in both namespaces
  AckMode ack_mode = AckMode::normal;  // the receiver's default for `lab run`
  std::int64_t queue_bytes = 0;  // > 0: tbf "limit" in bytes (a tiny queue forces drops)
};

using Log = std::function<void(const std::string&)>;
using Status = core::Result<void>;

bool have_root() noexcept;
// "lab needs root ..." when not root, else "".
std::string root_problem();
// Checks a tc rate ("100mbit", "10mbit", "1gbit", "500kbit"); bits per second or nullopt.
std::optional<double> parse_rate(const std::string& rate);
// Goodput ceiling of the shaped link in bytes/s for a 1500-byte MTU: rate/8 * mss / 1538.
double line_rate_bytes_per_s(double rate_bits, bool timestamps);

// Runs argv (no shell); on failure: "CMD ARGS: exit N: first line of its stderr".
Status run_command(const std::vector<std::string>& argv);

bool lab_present();  // either namespace exists
Status lab_up(const LabConfig& cfg, const Log& log);
Status lab_down();   // idempotent: removes both namespaces (and the veth with them), the state
std::optional<LabConfig> read_state();
// Moves the calling thread into namespace `name` (setns); sockets it makes live there.
Status enter_namespace(const std::string& name);

// Removes the lab when it goes out of scope (every return and exception path).
class LabGuard {
 public:
  LabGuard() = default;
  LabGuard(const LabGuard&) = delete;
  LabGuard& operator=(const LabGuard&) = delete;
  ~LabGuard() { (void)lab_down(); }
};

// Ctrl-C (SIGINT) or kill (SIGTERM) during a lab operation must not leave the namespaces behind.
// While an InterruptGuard lives, both signals are blocked in the calling thread and in every
// thread it starts (run_pair's), and a watcher thread takes them with sigtimedwait: on one it
// removes the lab (waiting for a lab_up in progress to finish first, so nothing is created
// after the removal), prints "ackstall: WHAT: interrupted by SIGINT; lab removed" and ends the
// process with 128 + the signal (130, 143). The destructor stops the watcher and restores the
// signal mask; a signal that arrived meanwhile is handled, not lost.
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

// One transfer a -> b: the receiver in ackstall-b, the transmitter in ackstall-a (threads).
// `realtime`: both threads run SCHED_FIFO (priority kRealtimePriority). The emulated quota
// (AfdSocketOps) learns a send's completion in user space and the classic receiver's ACKs
// follow its reads, so every write cycle includes two thread wake-ups that Winsock and a BSD
// receiver do in the kernel; on a machine shared with other work the scheduler makes those
// wake-ups late and the link idles (docs/VALIDATION.md section 4). Real-time threads take that
// artifact out; off = ordinary threads.
inline constexpr int kRealtimePriority = 10;
struct PairOutcome {
  int tx_code = 0, rx_code = 0;
  std::string tx_out, tx_err, rx_out, rx_err;
  TtcpResult tx, rx;
};
PairOutcome run_pair(TtcpConfig tx, TtcpConfig rx, bool realtime = true);

}  // namespace ackstall::tools::lab
