// ackstall/sim/app_ttcp.h — ttcp -t and ttcp -r as sans-IO state machines (app.h).
//
// TtcpTransmitter — `ttcp -t`: `writes` sends of `write_len` bytes. Under Cygwin each write is
//   first cut by the core chunk policy (the very code the real sender runs, seed get_chunk);
//   every piece is one Winsock send. Cygwin fhandler_socket::sendmsg (seed diff): WSASendTo; on
//   WSAEWOULDBLOCK wait for FD_WRITE and retry the same piece; a blocking send whose completion
//   AFD withholds (KB214397 rule 3, docs/STACKS.md §1) waits for the completion. Either wait
//   ends in writable(): a quota-wait stall, then the thread's wake-up (a draw of `wakeup` from
//   the run's RNG, a wakeup stall), then the next send. Each completed send costs
//   a draw of send_cost of CPU. After the last write: close() (FIN) when close_when_done.
//   The scp source (app_scp.h) is this loop with `cpu_ps_per_byte` of encryption before each
//   write; plain ttcp has 0. With `cpu_ahead_bytes` > 0 the encryption runs ahead of the socket
//   (ssh's output buffer): write k's encryption starts when the previous one's ends and write
//   k - 1 - N has been accepted by the socket, N = (cpu_ahead_bytes - 1) / write_len (ssh encrypts
//   while its buffer holds < cpu_ahead_bytes; N at most 2^17); each write goes
//   to the socket when both its encryption and the previous write are done. 0: encrypt, then
//   send, serially.
//
// TtcpReceiver — `ttcp -r`: blocking reads of up to read_len bytes (soreceive returns what is
//   there, lowat 1): a read that returns 0 blocks the reader until readable(), which wakes it
//   after a draw of `read_wakeup` (the scheduler's wake-up latency: sk_data_ready -> the blocked
//   reader runs); each read that returned data costs a draw of read_cost of CPU, then reads again.
//   The costs are drawn from the rng the simulation passes (the run's RNG, as the wake-ups).
//
// Protocol (the simulation's side):
//   transmitter: connected(now) -> run at the returned time; run(now) -> TxRequest:
//     send{len, nonblocking}: perform the send, then sent(now, outcome, rng) -> when to run next;
//     close: close the socket; sleep{at}: run again at `at`; none: nothing (waiting or done).
//     writable(now, rng) when the endpoint signals writable -> AppWake.
//   receiver (TtcpReceiver here, ScpSink in app_scp.h: the same interface): run(now, ready, rng)
//     with ready = data or EOF waiting in the socket -> RxRequest: read{len}: read, then
//     read_done(now, n, rng) -> when to run next (never: blocked in read); else its AppWake.
//     readable(now) when the endpoint signals readable -> AppWake.
#pragma once

#include "ackstall/core/chunk_policy.h"
#include "ackstall/sim/app.h"
#include "ackstall/sim/config.h"
#include "ackstall/sim/engine.h"
#include "ackstall/sim/send_buffer.h"

#include <cstdint>
#include <deque>

namespace ackstall::sim {

enum class TxKind : std::uint8_t { none, send, close, sleep };

struct TxRequest {
  TxKind kind = TxKind::none;
  std::int64_t len = 0;          // send: bytes offered
  bool nonblocking = false;      // send
  Nanos at = Nanos::never();     // sleep: run again then
};

// What a receiving application asks for: read up to `read` bytes now, or (read == 0) `wake`.
struct RxRequest {
  std::int64_t read = 0;
  AppWake wake{};
};

class TtcpTransmitter {
 public:
  // `chunk_params`: what the chunk policy believes about the socket (SO_SNDBUF, MSS guess).
  // `cpu_ps_per_byte`: CPU picoseconds per byte spent before each write (scp's encryption);
  // `cpu_ahead_bytes`: how far that work may run ahead of the socket (0: serially, see above).
  TtcpTransmitter(const TtcpTransmitterConfig& cfg, const core::SocketParams& chunk_params,
                  std::int64_t cpu_ps_per_byte = 0, std::int64_t cpu_ahead_bytes = 0);

  Nanos connected(Nanos now) noexcept;  // the connection is up: run at the returned time
  // Before the first write, the peer offering `peer_window`: the SO_SNDBUF the chunk policy
  // asks for (robust with allow_raise_sndbuf, core::ChunkPolicy::recommended_sndbuf, as
  // net::ChunkedSender before a send), the policy updated to it; otherwise the current one.
  std::int64_t raise_sndbuf(std::int64_t peer_window) noexcept;
  // What the chunk policy believes about the socket now (after a raise, with the peer's window).
  const core::SocketParams& chunk_params() const noexcept { return chunker_.params(); }
  TxRequest run(Nanos now);
  // never = wait for writable(); a completed send costs a draw of send_cost from `rng`.
  Nanos sent(Nanos now, const SendOutcome& o, Rng& rng) noexcept {
    ++send_calls_;
    if (o.would_block) {  // WSAEWOULDBLOCK: wait for FD_WRITE, then retry the same piece
      ++would_block_;
      // The quota is full: TCP_NODELAY for the rest of this write where the policy wants it
      // (core ChunkPolicy::nodelay_when_blocked).
      if (chunker_.nodelay_when_blocked(static_cast<std::size_t>(cfg_.write_len))) split_nodelay_ = true;
      state_ = State::wait_writable;
      wait_since_ = now;
      return Nanos::never();
    }
    piece_left_ -= o.accepted;
    write_left_ -= o.accepted;
    if (!o.completed) {  // blocking AFD send whose completion is withheld (KB214397 rule 3)
      state_ = State::wait_completion;
      wait_since_ = now;
      return Nanos::never();
    }
    return now + cfg_.send_cost.draw(rng);
  }
  // FD_WRITE / the withheld completion: a quota-wait stall, then the thread's wake-up.
  AppWake writable(Nanos now, Rng& rng) noexcept {
    AppWake w;
    if (!waiting()) return w;
    w.add_stall(StallKind::quota_wait, wait_since_, now);
    const Nanos lat = cfg_.wakeup.draw(rng);
    if (lat > Nanos::zero()) w.add_stall(StallKind::wakeup, now, now + lat);
    state_ = State::running;
    w.at = now + lat;
    return w;
  }

  // TCP_NODELAY wanted now: the current write is split by a policy that asks for it
  // (core ChunkPolicy::nodelay_for: robust with SO_SNDBUF < 2 MSS), until its last piece is sent.
  bool nodelay() const noexcept { return split_nodelay_ && write_left_ > 0; }
  bool done() const noexcept { return state_ == State::done; }
  bool waiting() const noexcept { return state_ == State::wait_writable || state_ == State::wait_completion; }
  std::int64_t writes_started() const noexcept { return writes_done_; }
  std::uint64_t send_calls() const noexcept { return send_calls_; }
  std::uint64_t would_block() const noexcept { return would_block_; }

 private:
  enum class State : std::uint8_t { idle, running, wait_writable, wait_completion, done };

  TtcpTransmitterConfig cfg_;
  core::ChunkPolicy chunker_;
  std::int64_t cpu_ps_per_byte_;
  std::size_t cpu_ahead_writes_ = 0;  // N above
  Nanos cpu_done_ = Nanos::zero();    // the newest write's encryption ends
  std::deque<Nanos> accepted_;        // when each of the last N + 1 writes began: its predecessor accepted
  State state_ = State::idle;
  std::int64_t writes_done_ = 0, write_left_ = 0, piece_left_ = 0;
  Nanos wait_since_ = Nanos::zero();
  Nanos started_at_ = Nanos::zero();  // connected(): the clock of cfg_.duration
  bool split_nodelay_ = false;  // this write is split and the policy wants TCP_NODELAY for it
  std::uint64_t send_calls_ = 0, would_block_ = 0;
};

class TtcpReceiver {
 public:
  // `cpu_ps_per_byte`: CPU picoseconds per byte read spent after each read (0 for ttcp).
  explicit TtcpReceiver(const TtcpReceiverConfig& cfg, std::int64_t cpu_ps_per_byte = 0) noexcept
      : cfg_(cfg), cpu_ps_per_byte_(cpu_ps_per_byte) {}

  RxRequest run(Nanos /*now*/, bool /*ready*/, Rng& /*rng*/) noexcept {
    scheduled_ = false;
    return {.read = cfg_.read_len};
  }
  // never = blocked in read(); a read that returned data costs a draw of read_cost from `rng`.
  Nanos read_done(Nanos now, std::int64_t n, Rng& rng) noexcept {
    ++read_calls_;
    if (n == 0) return Nanos::never();  // soreceive: lowat 1
    scheduled_ = true;
    return now + cfg_.read_cost.draw(rng) + Nanos(cpu_ps_per_byte_ * n / 1000);
  }
  AppWake readable(Nanos now, Rng& rng) noexcept {
    AppWake w;
    if (scheduled_) return w;
    scheduled_ = true;
    // The terms are drawn in the order written (delay.h), so runs do not depend on the compiler's
    // order of evaluating a sum.
    w.at = now + cfg_.read_wakeup.draw(rng);
    return w;
  }

  bool scheduled() const noexcept { return scheduled_; }
  std::uint64_t read_calls() const noexcept { return read_calls_; }

 private:
  TtcpReceiverConfig cfg_;
  std::int64_t cpu_ps_per_byte_;
  bool scheduled_ = false;  // a run is pending
  std::uint64_t read_calls_ = 0;
};

}  // namespace ackstall::sim
