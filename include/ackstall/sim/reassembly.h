// ackstall/sim/reassembly.h — a receiver's out-of-order queue (BSD tcp_reass, Linux
// tcp_data_queue_ofo, ns-3 TcpRxBuffer), as sequence ranges without payload.
//
// Segments beyond rcv_nxt are kept (merged into disjoint ranges) until the hole before them is
// filled; then take_contiguous() hands the receiver the bytes that now follow rcv_nxt. While
// ranges are queued every receiver the simulator models ACKs each segment at once (RFC 5681
// §4.2; BSD tcp_input: only th_seq == rcv_nxt with an empty queue takes the delayed-ACK path,
// anything else goes through tcp_reass and sets TF_ACKNOW; Linux __tcp_ack_snd_check:
// out-of-order data -> ACK now;
// ns-3 TcpSocketBase::ReceivedData: "a gap exists in the buffer, or we filled a gap: always
// ACK"), docs/STACKS.md §3, §4. The queued bytes do not reduce the advertised window (BSD:
// the window is sbspace of the socket buffer, which the reassembly queue is not part of).
#pragma once

#include <cstdint>
#include <map>

namespace ackstall::sim {

class ReassemblyQueue {
 public:
  // Keep [seq, end) (bytes at or past `limit` are dropped: no room behind the window); `fin`
  // when the segment carried a FIN right after `end` (kept only if nothing was cut).
  void add(std::int64_t seq, std::int64_t end, bool fin, std::int64_t limit);
  // After the hole at rcv_nxt has been filled up to `rcv_nxt`: the end of the bytes that now
  // follow it contiguously, at most `limit` (the rest is dropped; the sender will send it again).
  std::int64_t take_contiguous(std::int64_t rcv_nxt, std::int64_t limit);
  // Whether a queued FIN follows `rcv_nxt` directly (then the queue is empty).
  bool fin_at(std::int64_t rcv_nxt) const noexcept { return fin_ >= 0 && fin_ == rcv_nxt && ranges_.empty(); }
  void clear_fin() noexcept { fin_ = -1; }
  bool empty() const noexcept { return ranges_.empty() && fin_ < 0; }
  std::int64_t queued_bytes() const noexcept;

 private:
  std::map<std::int64_t, std::int64_t> ranges_;  // start -> end, disjoint, not adjacent
  std::int64_t fin_ = -1;                          // sequence number of a queued FIN
};

}  // namespace ackstall::sim
