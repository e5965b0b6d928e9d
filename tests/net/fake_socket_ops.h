// tests/net/fake_socket_ops.h — a scripted SocketOps for unit tests.
//
// send() consumes one scripted Step per call (accept everything when the script is empty),
// appends accepted bytes to `received` and records each call. `eintr_before_each` makes every
// call fail with EINTR that many times first (the Syscalls wrapper must hide them).
//
// The receive path and the AFD emulator's completions:
//   recv()             delivers `incoming` in order, one recv_script Step per call (take(n): a
//                      short receive of at most n bytes; error(code): that failure; empty
//                      script: as much as fits), 0 once `incoming` is used up (end of stream).
//   poll()             consumes one PollStep per call: after `sleep`, its `arrive` entries join
//                      the error queue and `result` is returned; empty script: none (timeout),
//                      or with `ack_on_poll` an error event and a TX_ACK of every byte sent.
//   read_error_queue() pops `error_queue` (an entry or a failure); empty: EAGAIN.
//   get_option(socket_error) returns `so_error` once (reading clears it, as SO_ERROR does).
//   set_option() records (option, value) in `options_set`; `set_option_errors` fails an option.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <thread>
#include <utility>
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

  struct PollStep {
    Result<PollEvents> result = PollEvents::error;
    std::vector<ErrorQueueEntry> arrive;  // completions that arrive during this poll
    std::chrono::milliseconds sleep{0};
  };
  static ErrorQueueEntry tx_ack(std::uint32_t id) { return {true, id}; }
  std::vector<std::byte> incoming;
  std::deque<Step> recv_script;
  std::deque<PollStep> poll_script;
  std::deque<Result<ErrorQueueEntry>> error_queue;
  int so_error = 0;
  bool ack_on_poll = false;
  std::map<SocketOption, int> set_option_errors;  // option -> errno its set_option fails with

  // Observations.
  std::vector<Call> calls;
  std::vector<std::byte> received;
  int waits = 0;
  int get_sndbuf_calls = 0;
  int tcp_info_calls = 0;
  int interface_calls = 0;
  int set_calls = 0;
  int total_calls = 0;
  std::size_t recv_offset = 0;                        // bytes of `incoming` delivered
  std::vector<std::size_t> recv_sizes;                // bytes per successful recv
  std::vector<int> poll_timeouts;                     // timeout_ms of each poll that ran
  std::vector<PollEvents> poll_wants;
  int error_queue_reads = 0;
  std::vector<std::pair<SocketOption, int>> options_set;

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
      return core::os_failure("sendmsg", step.code);
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
    if (opt == SocketOption::socket_error) return std::exchange(so_error, 0);
    return 0;
  }
  Result<void> set_option(NativeSocket, SocketOption opt, int value) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    ++set_calls;
    if (auto f = set_option_errors.find(opt); f != set_option_errors.end()) {
      return core::os_failure("setsockopt", f->second);
    }
    options_set.emplace_back(opt, value);
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
  Result<std::size_t> recv(NativeSocket, std::span<std::byte> into) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    Step step = all();
    if (!recv_script.empty()) {
      step = recv_script.front();
      recv_script.pop_front();
    }
    if (step.kind == Step::fail) return core::os_failure("recv", step.code);
    std::size_t n = std::min(into.size(), incoming.size() - recv_offset);
    if (step.kind == Step::accept_n) n = std::min(n, step.n);
    if (n > 0) std::memcpy(into.data(), incoming.data() + recv_offset, n);
    recv_offset += n;
    recv_sizes.push_back(n);
    return n;
  }
  Result<PollEvents> poll(NativeSocket, PollEvents want, int timeout_ms) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    poll_timeouts.push_back(timeout_ms);
    poll_wants.push_back(want);
    if (poll_script.empty()) {
      if (!ack_on_poll || received.empty()) return PollEvents::none;
      error_queue.emplace_back(tx_ack(static_cast<std::uint32_t>(received.size() - 1)));
      return PollEvents::error;
    }
    PollStep step = std::move(poll_script.front());
    poll_script.pop_front();
    if (step.sleep.count() > 0) std::this_thread::sleep_for(step.sleep);
    for (const auto& a : step.arrive) error_queue.emplace_back(a);
    return step.result;
  }
  Result<ErrorQueueEntry> read_error_queue(NativeSocket) override {
    if (auto e = interrupted()) return tl::unexpected(*e);
    ++error_queue_reads;
    if (error_queue.empty()) return core::os_failure("recvmsg(MSG_ERRQUEUE)", EAGAIN);
    auto r = std::move(error_queue.front());
    error_queue.pop_front();
    return r;
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
      return Error{"fake", EINTR, {}};  // the call is not made
    }
    eintr_left_ = eintr_before_each;  // the next call is interrupted again
    return std::nullopt;
  }
  int eintr_left_ = 0;
};

}  // namespace ackstall::net::testing
