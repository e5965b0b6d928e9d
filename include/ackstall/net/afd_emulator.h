// ackstall/net/afd_emulator.h — Winsock's per-send SO_SNDBUF quota (AFD) on a real Linux socket.
//
// Model (the seed post's pseudo-code, docs/STACKS.md §0, for a nonblocking socket; docs/STACKS.md §1, §7):
//   * every application send (one SocketOps::send) is charged WHOLE against the quota:
//       allowed while charged < quota      (seed: "if (bufferedbytes < so_sndbuf)")
//       otherwise it would block (EAGAIN)  (seed: "nonblocking and nonoverlapped: EAGAIN")
//   * a send is released (its bytes uncharged) only when the peer has ACKed its LAST byte: Winsock
//     releases per whole send, not per packet (seed; KB823764).
//   The kernel itself gets a large send buffer so that it never blocks first.
//
// AfdQuota is the pure accounting (no syscalls), tested on its own. AfdSocketOps is a SocketOps
// decorator for one connected socket (Linux only: it needs SO_TIMESTAMPING): ChunkedSender (or
// any SocketOps user) runs over it unchanged, so each chunk the policy cuts is one charged send,
// exactly as each WSASend was in the seed.
//
// ACK progress comes from SO_TIMESTAMPING with SOF_TIMESTAMPING_TX_ACK | SOFTWARE | OPT_ID |
// OPT_TSONLY, enabled after connect (the kernel numbers bytes from that point), read from
// MSG_ERRQUEUE, waited for with poll(POLLERR). The id is the offset of the last byte of a send;
// the kernel merges small sends into one skb and then reports only the newest one, so
// completions are treated as cumulative ("everything up to here is ACKed").
//
// Every OS call goes through the inner SocketOps (SocketOption::tx_ack_timestamps,
// read_error_queue, poll, SocketOption::socket_error) via a Syscalls, which retries EINTR: a
// fake inner SocketOps scripts completions and failures (tests/net/afd_fault_test.cc).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

#include "ackstall/core/afd_quota.h"
#include "ackstall/core/units.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"
#include "ackstall/net/socket_ops.h"
#include "ackstall/net/syscalls.h"

namespace ackstall::net {

// Byte accounting of one emulated AFD socket: the simulator's own (core/afd_quota.h).
using AfdQuota = core::AfdQuota;

// Maps a 32-bit TX_ACK id (offset of the last ACKed byte, modulo 2^32) to a cumulative 64-bit
// ACKed offset, given the offset ACKed so far (ids never run more than 2^31 ahead).
std::uint64_t unwrap_ack_id(std::uint32_t id, std::uint64_t acked_so_far) noexcept;

struct AfdOptions {
  std::int64_t quota = 8192;  // Winsock's XP/Win7-era default SO_SNDBUF (docs/STACKS.md §1)
  std::chrono::nanoseconds stall_threshold = core::kDefaultStallThreshold;
  int kernel_sndbuf = 4 << 20;  // SO_SNDBUFFORCE (root) else SO_SNDBUF: the kernel never blocks
};

struct AfdStats {
  std::uint64_t sends = 0;        // charged sends (one per SocketOps::send that took bytes)
  std::uint64_t would_blocks = 0; // sends refused because charged >= quota
  std::uint64_t waits = 0;        // waits for completions (wait_writable / wait_all_acked)
  std::uint64_t stalls = 0;       // waits longer than the stall threshold
  std::uint64_t completions = 0;  // TX_ACK timestamps read
  std::chrono::nanoseconds waited{0};        // total time spent waiting for completions
  std::chrono::nanoseconds longest_wait{0};
  std::int64_t final_quota = 0;  // the quota at the end (SO_SNDBUF may have raised it)
};

class AfdSocketOps final : public SocketOps {
 public:
  // `s` must be a connected TCP socket that has sent nothing yet; `inner` does the real sends
  // (normally system_socket_ops()) and must outlive this object. Enables TX_ACK timestamping
  // and raises the kernel send buffer. Fails with the failing call (EOPNOTSUPP off Linux).
  static Result<std::unique_ptr<AfdSocketOps>> attach(SocketOps& inner, NativeSocket s,
                                                         AfdOptions options);

  // One send: EAGAIN while charged >= quota (after reading any pending completions), else one
  // inner send whose accepted bytes are charged as one Winsock send.
  Result<std::size_t> send(NativeSocket s, std::span<const core::ByteSlice> slices,
                              SendFlags flags) override;
  // Waits until a send is allowed (completions read from the error queue), or timeout
  // (ETIMEDOUT). A socket error or hang-up is returned as the error (ECONNRESET, EPIPE).
  Result<void> wait_writable(NativeSocket s, int timeout_ms) override;
  // send_buffer reads/sets the emulated quota (Winsock reports the quota itself: not doubled).
  Result<int> get_option(NativeSocket s, SocketOption opt) override;
  Result<void> set_option(NativeSocket s, SocketOption opt, int value) override;
  Result<bool> is_nonblocking(NativeSocket s) override;
  Result<TcpInfo> tcp_info(NativeSocket s) override;
  Result<InterfaceMtu> interface_mtu(NativeSocket s) override;
  Result<SocketKind> socket_kind(NativeSocket s) override;
  // Forwarded to the inner SocketOps. read_error_queue is not: the error queue is the
  // emulator's own (default: EOPNOTSUPP).
  Result<std::size_t> recv(NativeSocket s, std::span<std::byte> into) override;
  Result<PollEvents> poll(NativeSocket s, PollEvents want, int timeout_ms) override;
  bool send_buffer_reported_doubled() const noexcept override { return false; }

  // Waits until every byte sent so far is ACKed (end of a transfer), or timeout (ETIMEDOUT).
  Result<void> wait_all_acked(int timeout_ms);

  const AfdQuota& quota() const noexcept { return quota_; }
  AfdStats stats() const noexcept {
    AfdStats s = stats_;
    s.final_quota = quota_.quota();
    return s;
  }

 private:
  AfdSocketOps(SocketOps& inner, NativeSocket s, AfdOptions options) noexcept
      : calls_(inner), socket_(s), options_(options), quota_(options.quota) {}
  // Reads every pending completion without blocking.
  Result<void> drain_completions();
  // Waits (poll POLLERR) until `done()` holds; counts the wait in stats_.
  template <class Done>
  Result<void> wait_until(Done done, int timeout_ms);

  Syscalls calls_;  // over the inner SocketOps
  NativeSocket socket_;
  AfdOptions options_;
  AfdQuota quota_;
  AfdStats stats_;
};

}  // namespace ackstall::net
