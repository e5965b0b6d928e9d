// TCP_INFO through the kernel's own struct (linux/tcp.h): glibc's netinet/tcp.h copy stops before
// tcpi_snd_wnd (Linux 5.19+), which the full-segment MSS needs (path_probe.h). A separate file:
// the two headers both define struct tcp_info.
#if defined(__linux__)
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

#include "tcp_info_linux.h"

namespace ackstall::net::posix {

int read_tcp_info(int fd, TcpInfo& out) {
  struct tcp_info info {};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return -1;
  out.snd_mss = static_cast<std::int64_t>(info.tcpi_snd_mss);
  out.timestamps = (info.tcpi_options & TCPI_OPT_TIMESTAMPS) != 0;
  out.in_flight = static_cast<std::int64_t>(info.tcpi_unacked);
  out.advmss = static_cast<std::int64_t>(info.tcpi_advmss);
  // An older kernel fills less of the struct: snd_wnd stays unknown.
  if (len >= offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof info.tcpi_snd_wnd) {
    out.snd_wnd = static_cast<std::int64_t>(info.tcpi_snd_wnd);
  }
  return 0;
}

}  // namespace ackstall::net::posix
#endif
