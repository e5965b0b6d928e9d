// AfdQuota: the pure byte accounting of an emulated Winsock AFD socket (afd_emulator.h).
#include <algorithm>

#include "ackstall/net/afd_emulator.h"

namespace ackstall::net {

void AfdQuota::charge(std::uint64_t len) {
  if (len == 0) return;
  sent_ += len;
  charged_ += static_cast<std::int64_t>(len);
  ends_.push_back({sent_, len});
}

std::size_t AfdQuota::acknowledge(std::uint64_t acked) noexcept {
  acked = std::min(acked, sent_);
  if (acked <= acked_) return 0;
  acked_ = acked;
  std::size_t released = 0;
  // seed: overlapped_send_completion_handler: bufferedbytes -= len (completed buffer)
  while (!ends_.empty() && ends_.front().end <= acked_) {
    charged_ -= static_cast<std::int64_t>(ends_.front().len);
    ends_.pop_front();
    ++released;
  }
  return released;
}

std::uint64_t unwrap_ack_id(std::uint32_t id, std::uint64_t acked_so_far) noexcept {
  // id = (offset of the last ACKed byte) mod 2^32, so id + 1 = cumulative ACKed offset mod 2^32.
  const std::uint32_t ahead = static_cast<std::uint32_t>(id + 1u) -
                              static_cast<std::uint32_t>(acked_so_far);
  if (ahead > 0x80000000u) return acked_so_far;  // an older id (behind): nothing new
  return acked_so_far + ahead;
}

}  // namespace ackstall::net
