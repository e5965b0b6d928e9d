// ackstall/ttcp/ack_test.h — probe --ack-test: the receiver's ACK behaviour, measured from the sender's side.
//
// With TCP_NODELAY on, the sender writes 1, 2 and 3 full segments (of the MSS TCP_INFO reports
// after the warm-up) at a time, `rounds` times each
// (after a warm-up that uses up a Linux receiver's quick-ACK credit), waiting each time until
// everything sent is ACKed (TCP_INFO: tcpi_unacked / BytesInFlight back to 0, polled every
// 50 us). The time from the write to that moment is the ACK delay plus one round trip. An odd
// count leaves the last segment alone: a receiver that ACKs every second segment at once
// (RFC 1122 4.2.3.2) and delays a lone one shows a long delay for 1 and 3 and a short one for 2.
// Sends data: a ttcp receiver reports the test as a short transfer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/socket_ops.h"

namespace ackstall::ttcp {

struct AckTestResult {
  std::int64_t mss = 0;                   // the segment size written
  std::vector<std::vector<double>> ms;    // ms[k - 1]: the delays of k-segment writes
  std::vector<double> median_ms;          // median_ms[k - 1]
  double delayed_ms = 0;                  // median of the delays above 5 ms (0: none)
  std::string verdict;                    // one sentence
  std::vector<std::string> fits;          // stacks whose delayed-ACK timer fits delayed_ms
};

core::Result<AckTestResult> run_ack_test(net::SocketOps& ops, net::NativeSocket s, std::int64_t mss, int rounds);

}  // namespace ackstall::ttcp
