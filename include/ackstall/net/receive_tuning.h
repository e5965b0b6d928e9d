// ackstall/net/receive_tuning.h — receiver-side socket knobs for ttcp and the lab.
//
// set_quickack: TCP_QUICKACK (Linux, tcp(7)). The flag is not permanent: the kernel leaves
//   quickack mode on its own, so a receiver that wants a classic delayed-ACK behaviour re-sets
//   it to 0 after every read (docs/STACKS.md §7: then every second segment is ACKed at once
//   and a lone one waits the delayed-ACK timer, ~40 ms); setting 1 after every read ACKs each
//   segment. Windows: SIO_TCP_SET_ACK_FREQUENCY 1 (on) or 2 (off, Windows' default), an error
//   where the ioctl is missing (Wine); other systems: EOPNOTSUPP.
// set_receive_buffer: SO_RCVBUF (ttcp -b on the receiver); set it on a listener before the
//   connection arrives so that the window scale is chosen from it.
// wait_readable: one socket through wait_readable.h's general wait: input (or error/hang-up)
//   up to timeout_ms (< 0: forever); false on timeout.
#pragma once

#include "ackstall/net/net_error.h"
#include "ackstall/net/tcp_socket.h"

namespace ackstall::net {

Result<void> set_quickack(const TcpSocket& s, bool on);
Result<void> set_receive_buffer(const TcpSocket& s, int bytes);
Result<bool> wait_readable(const TcpSocket& s, int timeout_ms);

}  // namespace ackstall::net
