// src/net/posix/error_queue.h (internal) — one MSG_ERRQUEUE read, decoded (socket_ops.h's
// read_error_queue). Linux only; elsewhere EOPNOTSUPP.
#pragma once

#include "ackstall/net/net_error.h"
#include "ackstall/net/socket_ops.h"

namespace ackstall::net::posix {

// The value SocketOption::tx_ack_timestamps sets SO_TIMESTAMPING to (0 where unsupported).
unsigned tx_ack_timestamping_flags() noexcept;

// One recvmsg(MSG_ERRQUEUE | MSG_DONTWAIT): no retry; an empty queue fails with EAGAIN.
Result<ErrorQueueEntry> read_error_queue(int s);

}  // namespace ackstall::net::posix
