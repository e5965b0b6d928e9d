// ackstall lab: one ttcp transfer a -> b, the receiver in ackstall-b and the transmitter in
// ackstall-a, each in a thread of this process moved into its namespace.
//
// `realtime`: both threads run SCHED_FIFO (priority kRealtimePriority). The emulated quota
// (AfdSocketOps) learns a send's completion in user space and the classic receiver's ACKs
// follow its reads, so every write cycle includes two thread wake-ups that Winsock and a BSD
// receiver do in the kernel; on a machine shared with other work the scheduler makes those
// wake-ups late and the link idles (docs/VALIDATION.md section 4). Real-time threads take that
// artifact out; off = ordinary threads.
#pragma once

#include <string>

#include "ackstall/ttcp/result.h"
#include "ttcp_cli.h"

namespace ackstall::tools {

inline constexpr int kRealtimePriority = 10;

// Each end's exit code and output as `ackstall ttcp` prints it (ttcp_run.h), and its result.
struct PairOutcome {
  int tx_code = 0, rx_code = 0;
  std::string tx_out, tx_err, rx_out, rx_err;
  ttcp::TransferResult tx, rx;
};
// ipv6: over the lab's IPv6 addresses (kAddr6A/B) instead of IPv4.
PairOutcome run_pair(TtcpConfig tx, TtcpConfig rx, bool realtime = true, bool ipv6 = false);

}  // namespace ackstall::tools
