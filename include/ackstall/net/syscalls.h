// ackstall/net/syscalls.h — the one wrapper around SocketOps.
//
// Every call made through a Syscalls is retried while it fails with EINTR (here, and nowhere
// else in net: the sender, the probe, the receive path and the AFD emulator all call through a
// Syscalls), and send()/recv()/read_error_queue() report EAGAIN/EWOULDBLOCK as a status, not
// an error. A Syscalls borrows its SocketOps, which must outlive it.
//
// Signals therefore never interrupt a call made through Syscalls (like SA_RESTART);
// wait_writable restarts with the full timeout after an EINTR, poll with what is left of it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "ackstall/core/io_cursor.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"
#include "ackstall/net/socket_ops.h"

namespace ackstall::net {

// Result of a send that did not fail: bytes accepted, or "would block" (then bytes == 0).
struct SendOutcome {
  std::size_t bytes = 0;
  bool would_block = false;
  friend bool operator==(const SendOutcome&, const SendOutcome&) = default;
};

// Result of a receive that did not fail: bytes (0 with eof = peer closed), or would_block on a
// nonblocking socket.
struct RecvOutcome {
  std::size_t bytes = 0;
  bool would_block = false;
  bool eof = false;
  friend bool operator==(const RecvOutcome&, const RecvOutcome&) = default;
};

class Syscalls {
 public:
  explicit Syscalls(SocketOps& ops) noexcept : ops_(&ops) {}

  Result<SendOutcome> send(NativeSocket s, std::span<const core::ByteSlice> slices,
                              SendFlags flags);
  Result<void> wait_writable(NativeSocket s, int timeout_ms);
  Result<int> get_option(NativeSocket s, SocketOption opt);
  Result<void> set_option(NativeSocket s, SocketOption opt, int value);
  Result<bool> is_nonblocking(NativeSocket s);
  Result<TcpInfo> tcp_info(NativeSocket s);
  Result<InterfaceMtu> interface_mtu(NativeSocket s);
  Result<SocketKind> socket_kind(NativeSocket s);
  // eof only when `into` is not empty (a zero-length read returns 0 without meaning anything).
  Result<RecvOutcome> recv(NativeSocket s, std::span<std::byte> into);
  // none = timed out (after timeout_ms in all, however many EINTRs came in between).
  Result<PollEvents> poll(NativeSocket s, PollEvents want, int timeout_ms);
  // nullopt = the queue is empty.
  Result<std::optional<ErrorQueueEntry>> read_error_queue(NativeSocket s);

  SocketOps& ops() const noexcept { return *ops_; }

 private:
  SocketOps* ops_;
};

}  // namespace ackstall::net
