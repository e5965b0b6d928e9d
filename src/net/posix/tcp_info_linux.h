// src/net/posix (internal): TCP_INFO read with the kernel's struct (tcp_info_linux.cc).
#pragma once

#include "ackstall/net/socket_ops.h"

namespace ackstall::net::posix {

// getsockopt(TCP_INFO) into `out`; 0, or -1 with errno set.
int read_tcp_info(int fd, TcpInfo& out);

}  // namespace ackstall::net::posix
