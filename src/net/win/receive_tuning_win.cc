// Winsock receiver knobs (receive_tuning.h); POSIX: src/net/posix/receive_tuning_posix.cc.
//
// set_quickack: Windows has no TCP_QUICKACK. Its closest knob is SIO_TCP_SET_ACK_FREQUENCY
// (mstcpip.h, Windows 8 and later: "the number of segments received before an ACK is sent";
// Microsoft Learn, "SIO_TCP_SET_ACK_FREQUENCY control code"): on = 1 (ACK every segment),
// off = 2, Windows' own default (ACK every second segment, else after the delayed-ACK timer,
// docs/STACKS.md §1). Where the ioctl is missing (Wine answers WSAEOPNOTSUPP, older
// Windows WSAEINVAL) the error is returned, named after the ioctl.
#include "winsock.h"  // first: the Winsock headers in their required order

#include "ackstall/net/receive_tuning.h"

namespace ackstall::net {

Result<void> set_quickack(const TcpSocket& s, bool on) {
  int frequency = on ? 1 : 2;
  DWORD returned = 0;
  if (::WSAIoctl(static_cast<SOCKET>(s.native()), SIO_TCP_SET_ACK_FREQUENCY, &frequency,
                 sizeof frequency, nullptr, 0, &returned, nullptr, nullptr) != 0) {
    return win::last_wsa_error("WSAIoctl(SIO_TCP_SET_ACK_FREQUENCY)");
  }
  return {};
}

Result<void> set_receive_buffer(const TcpSocket& s, int bytes) {
  if (::setsockopt(static_cast<SOCKET>(s.native()), SOL_SOCKET, SO_RCVBUF,
                   reinterpret_cast<const char*>(&bytes), sizeof bytes) != 0) {
    return win::last_wsa_error("setsockopt(SO_RCVBUF)");
  }
  return {};
}

}  // namespace ackstall::net
