// src/net/eintr.h (internal) — the single EINTR retry loop of the socket layer.
//
// `call` returns a Result<T>; it is repeated while it fails with EINTR. Used by Syscalls and
// by the connection-setup functions; nothing else in net retries EINTR.
#pragma once

#include <cerrno>
#include <utility>

namespace ackstall::net::detail {

template <class Call>
auto retry_on_eintr(Call&& call) {
  for (;;) {
    auto result = call();
    if (result || result.error().code != EINTR) return result;
  }
}

}  // namespace ackstall::net::detail
