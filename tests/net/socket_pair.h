// A connected loopback TCP pair for socket tests (POSIX and Winsock alike).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <utility>

#include "ackstall/net/tcp_socket.h"

namespace ackstall::net {

struct Pair {
  TcpSocket client, server;
};

inline Pair connected_pair() {
  using namespace std::chrono_literals;
  auto l = listen_tcp({"127.0.0.1", 0});
  EXPECT_TRUE(l) << l.error().message();
  auto c = connect_tcp({"127.0.0.1", l->port}, 5s);
  EXPECT_TRUE(c) << c.error().message();
  auto s = accept_tcp(l->socket);
  EXPECT_TRUE(s) << s.error().message();
  return {std::move(*c), std::move(*s)};
}

}  // namespace ackstall::net
