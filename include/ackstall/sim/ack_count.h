// ackstall/sim/ack_count.h — count-based delayed ACK: Windows and ns-3.
//
// windows — ACK every TcpAckFrequency-th in-order segment (default 2) or when the per-connection
//           200 ms delayed-ACK timer expires (TcpDelAckTicks = 2 x 100 ms); PSH does not force an
//           ACK: the seed notes Microsoft's own stack ignores RFC 813's push rule [I §1, seed].
// ns3     — ns-3.37 TcpSocketBase::ReceivedData: `if (++m_delAckCount >= m_delAckMaxCount)`
//           ACK now and reset the count; else arm DelAckTimeout if not already running;
//           DelAckTimeout resets the count and sends the ACK. The first data segment of the
//           connection is ACKed at once (peers/ns3 README). No PSH handling.
#pragma once

#include "ackstall/sim/ack_policy.h"

namespace ackstall::sim {

class CountAckPolicy final : public AckPolicy {
 public:
  CountAckPolicy(std::int32_t every, Nanos timeout, bool ack_first_segment);
  AckDecision on_segment(const SegmentArrival& a) override;
  void on_ack_sent(std::int64_t segments_acked) override;
  bool on_timer() override;
  bool pending() const override { return count_ > 0; }

 private:
  std::int32_t every_;
  Nanos timeout_;
  bool ack_first_;
  bool seen_data_ = false;
  std::int32_t count_ = 0;
  bool timer_ = false;
};

}  // namespace ackstall::sim
