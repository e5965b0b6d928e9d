// Linux error queue: SO_TIMESTAMPING TX_ACK reports (docs/STACKS.md §7; afd_emulator.h).
#include "error_queue.h"

#if defined(__linux__)
#include <time.h>  // struct timespec, before linux/errqueue.h

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#include <cerrno>
#include <cstring>

#include "os_error.h"

namespace ackstall::net::posix {

#if defined(__linux__)

unsigned tx_ack_timestamping_flags() noexcept {
  return SOF_TIMESTAMPING_TX_ACK | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
         SOF_TIMESTAMPING_OPT_TSONLY;
}

Result<ErrorQueueEntry> read_error_queue(int s) {
  alignas(cmsghdr) char control[512];
  msghdr msg{};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(s, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
    return os_error("recvmsg(MSG_ERRQUEUE)");
  }
  ErrorQueueEntry entry;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    const bool recverr = (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                         (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
    if (!recverr) continue;
    sock_extended_err err{};
    std::memcpy(&err, CMSG_DATA(c), sizeof err);
    if (err.ee_errno == ENOMSG && err.ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
        err.ee_info == SCM_TSTAMP_ACK) {
      entry = {true, err.ee_data};
    }
  }
  return entry;
}

#else

unsigned tx_ack_timestamping_flags() noexcept { return 0; }

Result<ErrorQueueEntry> read_error_queue(int) {
  return os_error("recvmsg(MSG_ERRQUEUE)", EOPNOTSUPP);
}

#endif

}  // namespace ackstall::net::posix
