// ackstall/core/chunk_policy.h — how to split one application send into chunks.
//
// Contract (pure value type, no syscalls, no allocation):
//   A ChunkPolicy is configured from the socket's tracked SO_SNDBUF, an MSS estimate and whether
//   the socket is a byte stream (SocketParams). `next_chunk(remaining)` answers: how many bytes of
//   the `remaining` bytes of the current send should the next OS call carry?  The answer is always
//   in [1, remaining] for remaining > 0 (and 0 for remaining == 0). Callers loop:
//       while (remaining) { n = policy.next_chunk(remaining); send n; remaining -= n; }
//   `plan(len)` returns that whole sequence (for tests, the CLI and the simulator).
//
// Policies (one interface, selected by PolicyKind):
//   none   — never split: one chunk of `remaining` bytes (plain Winsock/POSIX send).
//   seed   — Lev Bishop's 2006 Cygwin patch (docs/STACKS.md §0, fhandler_socket::update_chunk and
//            ::get_chunk), reproduced exactly:
//              base  = mss * ((sndbuf - 1) / mss)                              (update_chunk)
//              chunk = remaining                 if base == 0 or !stream or remaining < sndbuf
//                      base - mss                if remaining - base < mss and base > mss
//                      base                      otherwise                   (get_chunk)
//   cygwin — what Cygwin does today (winsup/cygwin/fhandler/socket_inet.cc, send_internal;
//            docs/STACKS.md §2): stream sends are cut into pieces of at most
//            the tracked SO_SNDBUF ("wmem"), no MSS logic. Note that a piece of exactly SO_SNDBUF
//            still meets KB823764's trigger (a send >= SO_SNDBUF on a nonblocking socket).
//
// What the seed policy guarantees, by SO_SNDBUF relative to MSS (proven exhaustively in
// tests/core/chunk_policy_test.cc for every mss in [536, 9000]):
//   The seed's four goals, in decreasing importance: (1) each chunk < SO_SNDBUF, (2) each chunk
//   >= MSS when the send is >= MSS, (3) each chunk but the last a whole number of MSS, (4) chunks
//   as large as possible. They give way one at a time as SO_SNDBUF shrinks:
//   * sndbuf >= 2*mss: all four hold. Every chunk < sndbuf; every chunk >= mss (the "shrink by
//     one MSS" rule moves one MSS into a short tail); every chunk but the last is k*mss.
//   * mss < sndbuf < 2*mss: base == mss. Goal (2) gives way first, for the LAST chunk only: the
//     tail may be shorter than one MSS (the shrink rule needs base > mss; e.g. sndbuf 2000,
//     mss 1460, a 2000-byte send -> 1460 + 540). (1) and (3) still hold. This matches the seed's
//     text: the goals can all be met only when "so_sndbuf >= 2*MSS".
//   * sndbuf <= mss: base == 0, so the policy does not chunk at all. Goal (1) gives way: a send
//     >= sndbuf goes out whole (KB823764's trigger), because any chunk < sndbuf would be < MSS
//     and suffer Nagle on every send.
//   Sends shorter than sndbuf are never split (they cannot trigger KB823764).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ackstall::core {

enum class PolicyKind : std::uint8_t { none, seed, cygwin };

// Every policy, in the order commands list them: the one table of policy names.
inline constexpr PolicyKind kPolicyKinds[] = {PolicyKind::none, PolicyKind::seed, PolicyKind::cygwin};

// Parses "none" / "seed" / "cygwin"; nullopt for anything else.
std::optional<PolicyKind> parse_policy_kind(std::string_view name) noexcept;
std::string_view to_string(PolicyKind kind) noexcept;
// The names of kPolicyKinds, in order (for CLI choices and messages).
std::vector<std::string> policy_names();

struct SocketParams {
  std::int64_t sndbuf = 8192;  // tracked SO_SNDBUF in bytes (Winsock quota); <= 0 means unknown
  std::int64_t mss = 1460;     // estimated MSS in bytes; must be > 0
  bool stream = true;          // SOCK_STREAM over IP (the seed chunks only AF_INET/SOCK_STREAM)
  friend bool operator==(const SocketParams&, const SocketParams&) = default;
};

class ChunkPolicy {
 public:
  constexpr ChunkPolicy() noexcept = default;
  ChunkPolicy(PolicyKind kind, SocketParams params) noexcept;

  PolicyKind kind() const noexcept { return kind_; }
  const SocketParams& params() const noexcept { return params_; }

  // The seed's update_chunk: recompute the base chunk after SO_SNDBUF or the MSS changed.
  void update(SocketParams params) noexcept;

  // Base chunk (the seed's `chunk` member): 0 means "this policy does not split".
  std::int64_t base_chunk() const noexcept { return base_; }

  // Bytes for the next OS call out of `remaining` bytes still to send of the current send.
  std::size_t next_chunk(std::size_t remaining) const noexcept;

  // The whole sequence of chunk sizes for one send of `len` bytes.
  std::vector<std::size_t> plan(std::size_t len) const;

 private:
  PolicyKind kind_ = PolicyKind::none;
  SocketParams params_{};
  std::int64_t base_ = 0;
};

}  // namespace ackstall::core
