// ackstall/core/afd_quota.h — Winsock AFD's send-buffer accounting as a pure value: one
// implementation behind the simulator's AFD send buffer (sim/send_buffer.h) and the Linux AFD
// emulator (net/afd_emulator.h). docs/STACKS.md §1:
//
//   * The quota is SO_SNDBUF. Each accepted send is charged whole (seed pseudo-code:
//     "bufferedbytes += len (userbuf)").
//   * A send is released only when the peer has ACKed its last byte, one whole send at a time
//     (seed: "overlapped_send_completion_handler: reduce bufferedbytes by length of completed
//     buffer"; KB823764).
//   * Nonblocking: a send is accepted iff charged < quota (seed: "if (bufferedbytes <
//     so_sndbuf)"), else WSAEWOULDBLOCK and FD_WRITE when a buffered send completes.
//   * Blocking (KB214397): rule 1, within quota: complete at once; rule 2, over quota with only
//     one send buffered: complete at once; rule 3, otherwise: copied, completion withheld until
//     the sends buffered before it are back within quota or only one of them is left.
//
// Offsets count stream bytes from the first send (0 = first byte). Sends are contiguous, so the
// outstanding ones cover [released_end(), sent()) and charged() == sent() - released_end().
// Allocation-free once the ring has grown to the most sends outstanding at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ackstall/core/ring.h"

namespace ackstall::core {

class AfdQuota {
 public:
  explicit AfdQuota(std::int64_t quota) noexcept : quota_(quota) {}

  std::int64_t quota() const noexcept { return quota_; }
  // setsockopt(SO_SNDBUF) on Winsock: a new quota, effective for the next send.
  void set_quota(std::int64_t quota) noexcept { quota_ = quota; }

  // Seed pseudo-code's test before a nonblocking send: bufferedbytes < so_sndbuf.
  bool may_send() const noexcept { return charged() < quota_; }
  // KB214397 rule 1 or rule 2 for the next send: a blocking send completes at once.
  bool completes_at_once() const noexcept { return charged() < quota_ || ends_.size() <= 1; }
  // KB214397 rule 3 for the newest send, whose completion was withheld: may it complete now?
  // (The sends buffered before it are within quota, or at most one of them is left.)
  bool withheld_may_complete() const noexcept;

  // A send of `len` bytes was accepted: charge it whole (len <= 0 charges nothing).
  void charge(std::int64_t len);

  // The peer has ACKed every byte below stream offset `acked` (cumulative; values not above
  // acked() are ignored, values beyond sent() are clamped). Releases every send whose last byte
  // is covered; returns how many were released.
  std::size_t acknowledge(std::int64_t acked) noexcept;

  // Does a send end inside (begin, end]? (Winsock sets PSH on the segment carrying a send's last
  // byte, docs/STACKS.md §1.)
  bool send_ends_in(std::int64_t begin, std::int64_t end) const noexcept;

  std::int64_t charged() const noexcept { return sent_ - released_end_; }
  std::size_t outstanding_sends() const noexcept { return ends_.size(); }
  std::int64_t sent() const noexcept { return sent_; }
  std::int64_t acked() const noexcept { return acked_; }
  std::int64_t released_end() const noexcept { return released_end_; }

 private:
  std::int64_t quota_;
  std::int64_t sent_ = 0;
  std::int64_t acked_ = 0;
  std::int64_t released_end_ = 0;  // end offset of the newest released send
  Ring<std::int64_t> ends_;        // end offsets of outstanding sends, ascending
};

}  // namespace ackstall::core
