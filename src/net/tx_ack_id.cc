// unwrap_ack_id: SO_TIMESTAMPING TX_ACK ids to stream offsets (afd_emulator.h).
#include "ackstall/net/afd_emulator.h"

namespace ackstall::net {

std::uint64_t unwrap_ack_id(std::uint32_t id, std::uint64_t acked_so_far) noexcept {
  // id = (offset of the last ACKed byte) mod 2^32, so id + 1 = cumulative ACKed offset mod 2^32.
  const std::uint32_t ahead = static_cast<std::uint32_t>(id + 1u) -
                              static_cast<std::uint32_t>(acked_so_far);
  if (ahead > 0x80000000u) return acked_so_far;  // an older id (behind): nothing new
  return acked_so_far + ahead;
}

}  // namespace ackstall::net
