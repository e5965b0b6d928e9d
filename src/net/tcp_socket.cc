// The platform-independent part of tcp_socket.h: the receive path, through the SocketOps seam
// (so that tests can script it: tests/net/receive_test.cc).
#include "ackstall/net/syscalls.h"
#include "ackstall/net/tcp_socket.h"

namespace ackstall::net {

Result<RecvOutcome> recv_some(const TcpSocket& s, std::span<std::byte> into) {
  return Syscalls(system_socket_ops()).recv(s.native(), into);
}

}  // namespace ackstall::net
