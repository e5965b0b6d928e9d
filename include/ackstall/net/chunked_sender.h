// ackstall/net/chunked_sender.h — the seed's fhandler_socket::sendmsg loop over a real socket.
//
// ChunkedSender splits each application send into chunks chosen by a core::ChunkPolicy (the
// seed's get_chunk) and walks the caller's slices with a core::IoCursor (the seed's nextchunk);
// every OS call goes through Syscalls (EINTR retried there, EAGAIN as a status).
//
// send(slices, flags), per mode (nonblocking = flags has dont_wait, or the socket has
// O_NONBLOCK, asked of the OS during every send where the mode decides something — at a
// would-block, or after a whole chunk when more remains — so a mode change is always seen and
// a send that fits in one chunk costs no fcntl):
//   blocking:    send chunk after chunk; on EAGAIN wait (poll for writability) and retry the
//                same chunk; stop at the first short OS send (fewer bytes than offered) and
//                return the total. Without a short send the whole request goes out.
//   nonblocking: at most one OS send of the first chunk; return its count (a legal short
//                write), or would_block if the OS accepted nothing.
//   Empty requests (no bytes, zero-length slices only) return 0 without an OS call.
// Errors: an error before any byte was accepted is returned as the Error. An error after
//   some bytes of this request were accepted (blocking mode) returns those bytes, and the error
//   is returned by the next send() — the caller always learns exactly how many bytes the OS took.
// Slices: at most kMaxSlicesPerCall (IOV_MAX) per OS call. In blocking mode a chunk spanning
//   more slices goes out in several OS calls (a full batch is not a short send); in nonblocking
//   mode only the first batch is offered, which is again a legal short write.
//
// TCP_NODELAY (robust with SO_SNDBUF < 2 MSS, ChunkPolicy::wants_nodelay): set before the first
//   piece of a send the policy splits, and cleared again (unless the application had set it)
//   after the piece that ends a request; a nonblocking caller's later calls for the rest of the
//   same data keep it while they are split. Costs no syscall where the policy does not ask.
// Raised SO_SNDBUF (SenderOptions::allow_raise_sndbuf, robust): set through set_option() before
//   the first send of a request larger than the policy's recommendation allows.
//
// Ideal send backlog (SenderOptions::follow_isb; by default on where `auto` resolves to robust,
//   i.e. Windows): before a send, at most once per isb_interval (1 s, as curl does), SO_SNDBUF is
//   set to Windows' ideal send backlog (SIO_IDEAL_SEND_BACKLOG_QUERY, ideal_send_backlog.h), so
//   the policy chunks under the quota the path wants. A failed query (POSIX; Windows before Vista
//   SP1) changes nothing: the policy runs on the SO_SNDBUF it has.
// SO_SNDBUF tracking (the seed's update_sndbuf, hooked in cygwin_setsockopt): set_option() is
//   the setsockopt wrapper; setting send_buffer (or tcp_maxseg) marks the policy stale, and the
//   next send() re-reads SO_SNDBUF (see path_probe.h for the Linux "doubled" rule: the policy
//   uses half the kernel's value = the value the application set) and the MSS, then rebuilds
//   the policy. The first send() reads them too. Changes made behind the sender's back (a raw
//   setsockopt, kernel autotuning) are seen only after invalidate().
//
// Not thread-safe; one sender per socket. The socket is borrowed, not owned.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/io_cursor.h"
#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"
#include "ackstall/net/path_probe.h"  // kKernelChargesPerSend
#include "ackstall/net/socket_ops.h"
#include "ackstall/net/syscalls.h"

namespace ackstall::net {

struct SenderOptions {
  // auto: a plain send where the kernel charges no per-send quota, robust where it does
  // (core/chunk_policy.h, docs/STACKS.md §8).
  core::PolicyKind policy = core::PolicyKind::automatic;
  std::int64_t mss = 0;  // > 0: use this MSS; 0: measure it (probe_mss)
  // Whether sends are charged per whole send: kKernelChargesPerSend, or true over the Linux AFD
  // emulator (afd_emulator.h). Read by `auto` only.
  bool per_send_quota = kKernelChargesPerSend;
  // robust may raise SO_SNDBUF before a send (ChunkPolicy::recommended_sndbuf, KB823764).
  bool allow_raise_sndbuf = false;
  // Keep SO_SNDBUF at the ideal send backlog (see above). nullopt: only where `auto` resolves to
  // robust (policy automatic and per_send_quota: Windows, docs/STACKS.md §8).
  std::optional<bool> follow_isb = std::nullopt;
  std::chrono::milliseconds isb_interval{1000};
  // The application set SO_SNDBUF on this socket before handing it over (core::SocketParams::
  // sndbuf_set; read by cygwin-patch only). ChunkedSender::set_option(send_buffer) sets it, as
  // Cygwin's setsockopt marks it (contrib/cygwin/cygwin_piece.h: unset, Windows' dynamic send
  // buffering sizes AFD's quota).
  bool sndbuf_set = false;
};

class ChunkedSender {
 public:
  ChunkedSender(SocketOps& ops, NativeSocket s, SenderOptions options = {});

  Result<SendOutcome> send(std::span<const core::ByteSlice> slices,
                              SendFlags flags = SendFlags::none);

  // setsockopt wrapper: sets the option; send_buffer / tcp_maxseg make the policy stale.
  Result<void> set_option(SocketOption opt, int value);

  // Re-read SO_SNDBUF and the MSS before the next send.
  void invalidate() noexcept { stale_ = true; }

  // The policy the next send() will use (refreshing it first if stale).
  Result<core::ChunkPolicy> policy();

  NativeSocket socket() const noexcept { return socket_; }

  using Clock = std::chrono::steady_clock;
  bool follows_isb() const noexcept;
  // Where the sender follows the ISB: queries it if due (at most once per isb_interval) and sets
  // SO_SNDBUF to a new reading (send() calls it first; call it to see the reading before the first
  // send). A failed query is a fallback reading, not an error; a failed setsockopt is the error.
  Result<void> update_isb(Clock::time_point now = Clock::now());
  // The last ISB reading (nullopt until one was taken) and the SO_SNDBUF set from it.
  const std::optional<Finding<std::int64_t>>& isb_reading() const noexcept { return isb_; }
  std::optional<std::int64_t> isb_applied() const noexcept { return isb_applied_; }

 private:
  Result<void> refresh();
  Result<void> set_nodelay(bool on);

  Syscalls calls_;
  NativeSocket socket_;
  SenderOptions options_;
  core::ChunkPolicy policy_;
  std::optional<bool> stream_;       // read once: the socket type does not change
  std::optional<Error> deferred_; // error held back behind a partial count
  bool stale_ = true;
  bool nodelay_set_ = false;         // in a split send that wants TCP_NODELAY
  bool nodelay_restore_ = false;     // ... and we set it (the application had not)
  std::unique_ptr<std::array<core::ByteSlice, kMaxSlicesPerCall>> batch_;
  std::optional<Clock::time_point> isb_queried_;
  std::optional<Finding<std::int64_t>> isb_;
  std::optional<std::int64_t> isb_applied_;
};

}  // namespace ackstall::net
