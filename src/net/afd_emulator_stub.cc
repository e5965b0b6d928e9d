// AfdSocketOps where SO_TIMESTAMPING TX_ACK does not exist (not Linux): attach() fails with
// EOPNOTSUPP, so no object is ever made; the members exist only to complete the class.
#include <cerrno>

#include "ackstall/net/afd_emulator.h"

namespace ackstall::net {
namespace {
tl::unexpected<Error> unsupported() {
  return core::os_failure("afd emulation (needs Linux SO_TIMESTAMPING)", EOPNOTSUPP);
}
}  // namespace

Result<std::unique_ptr<AfdSocketOps>> AfdSocketOps::attach(SocketOps&, NativeSocket,
                                                              AfdOptions) {
  return unsupported();
}
Result<std::size_t> AfdSocketOps::send(NativeSocket, std::span<const core::ByteSlice>,
                                          SendFlags) {
  return unsupported();
}
Result<void> AfdSocketOps::wait_writable(NativeSocket, int) { return unsupported(); }
Result<void> AfdSocketOps::wait_all_acked(int) { return unsupported(); }
Result<int> AfdSocketOps::get_option(NativeSocket, SocketOption) { return unsupported(); }
Result<void> AfdSocketOps::set_option(NativeSocket, SocketOption, int) { return unsupported(); }
Result<bool> AfdSocketOps::is_nonblocking(NativeSocket) { return unsupported(); }
Result<TcpInfo> AfdSocketOps::tcp_info(NativeSocket) { return unsupported(); }
Result<InterfaceMtu> AfdSocketOps::interface_mtu(NativeSocket) { return unsupported(); }
Result<SocketKind> AfdSocketOps::socket_kind(NativeSocket) { return unsupported(); }
Result<std::size_t> AfdSocketOps::recv(NativeSocket, std::span<std::byte>) { return unsupported(); }
Result<PollEvents> AfdSocketOps::poll(NativeSocket, PollEvents, int) { return unsupported(); }

}  // namespace ackstall::net
