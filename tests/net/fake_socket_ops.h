// tests/net/fake_socket_ops.h — a scripted SocketOps for unit tests.
//
// send() consumes one scripted Step per call (accept everything when the script is empty),
// appends accepted bytes to `received` and records each call. `eintr_before_each` makes every
// call fail with EINTR that many times first (the Syscalls wrapper must hide them).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <deque>
#include <optional>
#include <vector>

#include "ackstall/net/socket_ops.h"

namespace ackstall::net::testing {

class FakeSocketOps final : public SocketOps {
 public:
  struct Step {
    enum Kind { accept_all, accept_n, fail } kind = accept_all;
    std::size_t n = 0;  // accept_n
    int code = 0;       // fail
  };
  static Step all() { return {Step::accept_all, 0, 0}; }
  static Step take(std::size_t n) { return {Step::accept_n, n, 0}; }
  static Step error(int code) { return {Step::fail, 0, code}; }

  struct Call {
    std::size_t bytes_offered = 0;
    std::size_t slices = 0;
    std::size_t accepted = 0;
    SendFlags flags = SendFlags::none;
  };

  // Configuration.
  std::deque<Step> script;
  bool nonblocking = false;
  bool doubled = true;
  int sndbuf_reported = 16384;
  Result<TcpInfo> info = TcpInfo{1448, true};
  Result<int> maxseg = 1448;
  Result<InterfaceMtu> mtu = InterfaceMtu{"eth0", 1500};
  SocketKind kind{true, true};
  std::optional<Error> get_sndbuf_error;
  int eintr_before_each = 0;  // set with arm_eintr()

  // Observations.
  std::vector<Call> calls;
  std::vector<std::byte> received;
  int waits = 0;
  int get_sndbuf_calls = 0;
  int tcp_info_calls = 0;
  int interface_calls = 0;
  int set_calls = 0;
  int total_calls = 0;

  Result<std::size_t> send(NativeSocket, std::span<const core::ByteSlice> slices,
                              SendFlags flags) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    Call c;
    c.slices = slices.size();
    c.flags = flags;
    for (const auto& s : slices) c.bytes_offered += s.size;
    Step step = all();
    if (!script.empty()) {
      step = script.front();
      script.pop_front();
    }
    if (step.kind == Step::fail) {
      calls.push_back(c);
      return tl::unexpected(Error{"sendmsg", step.code, {}});
    }
    std::size_t want = step.kind == Step::accept_n ? std::min(step.n, c.bytes_offered)
                                                   : c.bytes_offered;
    c.accepted = want;
    for (const auto& s : slices) {
      const std::size_t k = std::min(want, s.size);
      const auto* p = static_cast<const std::byte*>(s.data);
      received.insert(received.end(), p, p + k);
      want -= k;
    }
    calls.push_back(c);
    return c.accepted;
  }
  Result<void> wait_writable(NativeSocket, int) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    ++waits;
    return {};
  }
  Result<int> get_option(NativeSocket, SocketOption opt) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    if (opt == SocketOption::send_buffer) {
      ++get_sndbuf_calls;
      if (get_sndbuf_error) return tl::unexpected(*get_sndbuf_error);
      return sndbuf_reported;
    }
    if (opt == SocketOption::tcp_maxseg) return maxseg;
    return 0;
  }
  Result<void> set_option(NativeSocket, SocketOption opt, int value) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    ++set_calls;
    if (opt == SocketOption::send_buffer) sndbuf_reported = doubled ? 2 * value : value;
    if (opt == SocketOption::tcp_maxseg) maxseg = value;
    return {};
  }
  Result<bool> is_nonblocking(NativeSocket) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    return nonblocking;
  }
  Result<TcpInfo> tcp_info(NativeSocket) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    ++tcp_info_calls;
    return info;
  }
  Result<InterfaceMtu> interface_mtu(NativeSocket) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    ++interface_calls;
    return mtu;
  }
  Result<SocketKind> socket_kind(NativeSocket) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    return kind;
  }
  bool send_buffer_reported_doubled() const noexcept override { return doubled; }

  // Every call from now on fails with EINTR n times before it runs.
  void arm_eintr(int n) {
    eintr_before_each = n;
    eintr_left_ = n;
  }

 private:
  std::optional<Error> interrupted() {
    ++total_calls;
    if (eintr_left_ > 0) {
      --eintr_left_;
      return Error{"fake", EINTR, {}};
    }
    eintr_left_ = eintr_before_each;  // the next call is interrupted again
    return std::nullopt;
  }
  int eintr_left_ = 0;
};

}  // namespace ackstall::net::testing
