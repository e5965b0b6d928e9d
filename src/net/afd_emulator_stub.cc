// AfdSocketOps where SO_TIMESTAMPING TX_ACK does not exist (not Linux): attach() fails with
// EOPNOTSUPP, so no object is ever made; the members exist only to complete the class.
#include <cerrno>

#include "ackstall/net/afd_emulator.h"

namespace ackstall::net {
namespace {
std::unexpected<NetError> unsupported() {
  return std::unexpected(NetError{"afd emulation (needs Linux SO_TIMESTAMPING)", EOPNOTSUPP, {}});
}
}  // namespace

NetResult<std::unique_ptr<AfdSocketOps>> AfdSocketOps::attach(SocketOps&, NativeSocket,
                                                              AfdOptions) {
  return unsupported();
}
NetResult<std::size_t> AfdSocketOps::send(NativeSocket, std::span<const core::ByteSlice>,
                                          SendFlags) {
  return unsupported();
}
NetResult<void> AfdSocketOps::wait_writable(NativeSocket, int) { return unsupported(); }
NetResult<void> AfdSocketOps::wait_all_acked(int) { return unsupported(); }
NetResult<int> AfdSocketOps::get_option(NativeSocket, SocketOption) { return unsupported(); }
NetResult<void> AfdSocketOps::set_option(NativeSocket, SocketOption, int) { return unsupported(); }
NetResult<bool> AfdSocketOps::is_nonblocking(NativeSocket) { return unsupported(); }
NetResult<TcpInfo> AfdSocketOps::tcp_info(NativeSocket) { return unsupported(); }
NetResult<InterfaceMtu> AfdSocketOps::interface_mtu(NativeSocket) { return unsupported(); }
NetResult<SocketKind> AfdSocketOps::socket_kind(NativeSocket) { return unsupported(); }

}  // namespace ackstall::net
