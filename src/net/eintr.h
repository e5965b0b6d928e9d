// src/net/eintr.h (internal) — the single EINTR retry loop of the socket layer.
//
// `call` returns a Result<T>; it is repeated while it fails with EINTR. Used by Syscalls and
// by the connection-setup functions; nothing else in net retries EINTR.
//
// retry_on_eintr_timed: for calls with a timeout (poll). `call(ms)` is repeated with what is
// left of `timeout_ms` (< 0: forever, passed on unchanged), so a signal storm cannot stretch
// the wait; once nothing is left it is called with 0 (one last check).
#pragma once

#include <cerrno>
#include <chrono>
#include <utility>

namespace ackstall::net::detail {

template <class Call>
auto retry_on_eintr(Call&& call) {
  for (;;) {
    auto result = call();
    if (result || result.error().code != EINTR) return result;
  }
}

template <class Call>
auto retry_on_eintr_timed(int timeout_ms, Call&& call) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  int wait_ms = timeout_ms;
  for (;;) {
    auto result = call(wait_ms);
    if (result || result.error().code != EINTR) return result;
    if (timeout_ms < 0) continue;
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    wait_ms = spent.count() >= timeout_ms ? 0 : timeout_ms - static_cast<int>(spent.count());
  }
}

}  // namespace ackstall::net::detail
