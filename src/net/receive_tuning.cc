// The platform-independent part of receive_tuning.h.
#include "ackstall/net/receive_tuning.h"

#include "ackstall/net/wait_readable.h"

namespace ackstall::net {

Result<bool> wait_readable(const TcpSocket& s, int timeout_ms) {
  // One socket through the general wait (wait_readable.h), which owns the EINTR retry.
  const WaitItem item = WaitItem::of_socket(s.native());
  auto ready = wait_readable(std::span<const WaitItem>(&item, 1), timeout_ms);
  if (!ready) return tl::unexpected(std::move(ready.error()));
  return !ready->empty();
}

}  // namespace ackstall::net
