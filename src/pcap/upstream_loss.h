// Internal: a sequence hole filled later is the time of a loss upstream of the capture point
// (issue 37).
//
// Downstream of a drop (beside the receiver, or at a tap past the bottleneck queue) the capture
// never sees the first transmission: the segments after it arrive, the receiver repeats its ACK
// (RFC 5681 §3.2), and only the retransmission, a round trip or more later, fills the hole. The
// flow was in recovery from the hole on, not when the retransmission arrived; the time between
// is the loss's (at the sender's side the same span is the duplicate ACKs before the fast
// retransmit). A hole that is ACKed past without being filled was missed by the capture (kernel
// drops): no loss, and its mark is dropped. HalfFlow marks the accounts when the first hole opens
// and, when a retransmission fills a hole, moves what went to the flight and the network since
// the mark to loss.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ackstall::pcap::detail {

struct HoleMark {
  std::int64_t at = 0;          // when the hole opened
  std::int64_t flight_ns = 0;   // HalfFlow::flight_ns_ then
  std::int64_t network_ns = 0;  // the network's account then
  std::size_t timeline_size = 0;
};

}  // namespace ackstall::pcap::detail
