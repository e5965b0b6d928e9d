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
//   cygwin — what Cygwin and MSYS2 do today (cygwin/cygwin 61b4866b, unchanged in msys2-runtime
//            2bfb7739: winsup/cygwin/fhandler/socket_inet.cc, fhandler_socket_wsock::send_internal;
//            docs/STACKS.md §2): a stream send's buffers are merged and cut into pieces of
//            exactly wmem () bytes, the last piece the rest; no MSS logic. wmem () is 212992
//            until setsockopt(SO_SNDBUF, N) (fhandler_socket_inet::setsockopt) sets it and
//            Winsock's SO_SNDBUF to N. A piece of exactly SO_SNDBUF still meets KB823764's
//            trigger (a send >= SO_SNDBUF on a nonblocking socket). contrib/cygwin/ patches it.
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
//
//   robust — beyond the seed (docs/STACKS.md §8). A table of regimes by S = SO_SNDBUF against
//            M = MSS (src/core/chunk_policy.cc, kRobustRegimes; the first that holds decides):
//              S <= M            whole, TCP_NODELAY+  no whole MSS fits below the quota (§3, §4)
//              M < S < 2M        seed, TCP_NODELAY+m  one-MSS pieces, ACKed in pairs (§0, §1)
//              2M <= S < 5M      seed, +half          few segments of quota: large pieces (§0)
//              M > 4 KiB         seed                 jumbo: quarter pieces lock into 1 seg/RTT (§8)
//              otherwise         quarter              >= 3 pieces queued when one is released (§8)
//            seed = the seed's get_chunk above; quarter = M * floor(S / 4M), the tail riding
//            along with the last piece while it stays below min(S, piece + M).
//            TCP_NODELAY (wants_nodelay, nodelay_for) is asked for the span of a send >= S: so
//            that Nagle (RFC 896; KB214397, §1) does not hold its short last segment while the
//            quota or the receiver's delayed ACK holds the next. TCP_NODELAY+: also for the rest
//            of a smaller send that finds the quota full (nodelay_when_blocked): no later send
//            can fill the segment Nagle holds to one MSS, so it waits for the delayed ACK.
//            TCP_NODELAY+m: as TCP_NODELAY+ under RFC 896's Nagle; under Minshall's
//            (SocketParams::minshall_nagle) only for a send of at least S / 2. +half: only the
//            blocked sends of at least S / 2 (kRobustRegimes gives the reasons).
//            SO_SNDBUF is not part of the cut: SndbufRule (below) says what the sender does with
//            it; under `raise` robust recommends the SO_SNDBUF of recommended_sndbuf().
//   cygwin_patch ("cygwin-patch") — the Cygwin patch of contrib/cygwin/: next_chunk is that
//            patch's own function, cygwin_piece (contrib/cygwin/cygwin_piece.h), with WMEM =
//            sndbuf, MSS = mss, LEN = the send's length and SNDBUF_SET = SocketParams::sndbuf_set.
//            It cuts as robust (its cut only: no TCP_NODELAY, no SO_SNDBUF raise) where a whole
//            MSS fits below S, as cygwin where none does, except that with sndbuf_set a send
//            below S goes whole in the quarter regime too (it cannot trigger KB823764; whole it
//            keeps S plus one send in flight, as cygwin does). The rule is the send's: the rest
//            of a send >= S is cut as robust cuts it.
//   automatic ("auto") — a plain send (none) where the kernel charges no per-send quota (Linux,
//            BSD, macOS: SocketParams::per_send_quota false), robust where it does (Winsock AFD, or
//            the AFD emulator).
//
// SO_SNDBUF, beside the cut (SndbufRule; docs/STACKS.md §8):
//   keep          — the sender leaves SO_SNDBUF as the application set it.
//   raise         — KB823764's second workaround (a larger SO_SNDBUF, §1): before a send robust
//                   cannot cut without a stall the sender sets recommended_sndbuf() (robust only;
//                   SocketParams::allow_raise_sndbuf).
//   ideal-backlog — SO_SNDBUF follows Windows' ideal send backlog (SIO_IDEAL_SEND_BACKLOG_QUERY,
//                   queried at most once a second as curl does, §1); where the query fails
//                   (POSIX, Windows before Vista SP1) as keep. Only net::ChunkedSender can.
//
// The default policy of each entry point, by one rule (docs/GUIDE.md §5): what sends for an
// application picks for its platform (`auto`: net::ChunkedSender); what shows, models or
// reproduces a program defaults to that program (`none`: ackstall ttcp and sim, the unmodified
// program; `seed`: ackstall plan and probe, the seed's patch). SO_SNDBUF: `ideal-backlog` where
// `auto` resolves to robust on Windows (and `--chunk isb`), `raise` where allowed, else `keep`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ackstall::core {

enum class PolicyKind : std::uint8_t { none, seed, cygwin, robust, automatic, cygwin_patch };

// Every policy, in the order commands list them: the one table of policy names.
inline constexpr PolicyKind kPolicyKinds[] = {PolicyKind::none,         PolicyKind::seed,   PolicyKind::cygwin,
                                              PolicyKind::cygwin_patch, PolicyKind::robust, PolicyKind::automatic};

// Parses "none" / "seed" / "cygwin" / "cygwin-patch" / "robust" / "auto"; nullopt for anything
// else.
std::optional<PolicyKind> parse_policy_kind(std::string_view name) noexcept;
std::string_view to_string(PolicyKind kind) noexcept;
// The names of kPolicyKinds, in order (for CLI choices and messages).
std::vector<std::string> policy_names();

// What the sender does with SO_SNDBUF, beside the cut (the header's comment).
enum class SndbufRule : std::uint8_t { keep, raise, ideal_backlog };
inline constexpr SndbufRule kSndbufRules[] = {SndbufRule::keep, SndbufRule::raise, SndbufRule::ideal_backlog};
// Parses "keep" / "raise" / "ideal-backlog"; nullopt for anything else.
std::optional<SndbufRule> parse_sndbuf_rule(std::string_view name) noexcept;
std::string_view to_string(SndbufRule rule) noexcept;
std::vector<std::string> sndbuf_rule_names();

struct SocketParams {
  std::int64_t sndbuf = 8192;  // tracked SO_SNDBUF in bytes (Winsock quota); <= 0 means unknown
  std::int64_t mss = 1460;     // estimated MSS in bytes; must be > 0
  bool stream = true;          // SOCK_STREAM over IP (the seed chunks only AF_INET/SOCK_STREAM)
  // The kernel charges SO_SNDBUF per whole send (Winsock AFD, §1; or the AFD emulator). Only
  // `automatic` reads it: false -> plain send, true -> robust. Set by ChunkedSender from the
  // platform (net::kKernelChargesPerSend) and by the simulator from its AFD send buffer.
  bool per_send_quota = false;
  // The application lets the policy raise SO_SNDBUF (robust: recommended_sndbuf()).
  bool allow_raise_sndbuf = false;
  // The window the peer offers, in bytes, as last seen (the SYN-ACK's, before any data); 0 =
  // unknown. Only recommended_sndbuf() reads it (jumbo MSS, M < S < 2M).
  std::int64_t peer_window = 0;
  // The sender's Nagle is Minshall's variant (Linux tcp_nagle_check, tcp_minshall_check: a short
  // segment waits only while an earlier short one is unacknowledged); false: RFC 896's, as
  // Windows and BSD (a short segment waits while any data is unacknowledged; STACKS.md §1, §3).
  bool minshall_nagle = false;
  // The application set SO_SNDBUF, so the kernel's per-send quota is `sndbuf`; false: it never
  // did, and the kernel sizes the quota itself (Windows 7+ dynamic send buffering), `sndbuf`
  // being only the application's idea of it (Cygwin's wmem () default). Only cygwin-patch reads
  // it (cygwin_piece's SNDBUF_SET).
  bool sndbuf_set = true;
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
  std::size_t next_chunk(std::size_t remaining) const noexcept { return next_chunk(remaining, remaining); }
  // The same, `remaining` being what is left of a send of `send_len` bytes (remaining <=
  // send_len). Only cygwin-patch reads send_len (a send below SO_SNDBUF goes whole); callers that
  // cut a send into pieces pass it.
  std::size_t next_chunk(std::size_t remaining, std::size_t send_len) const noexcept;

  // The whole sequence of chunk sizes for one send of `len` bytes.
  std::vector<std::size_t> plan(std::size_t len) const;

  // How many chunks of `chunk` bytes in a row (chunk = next_chunk(remaining, send_len)) the policy
  // makes from `remaining` bytes on. Every policy's chunk is a step function of the bytes left (a
  // base size, then a tail rule near the end; cygwin-patch's also of send_len, which stays), so
  // the run is found by doubling and then bisecting instead of one call per chunk: `ackstall plan
  // --summary` of a 64 GiB send with a 1-byte MSS takes microseconds.
  std::uint64_t run_length(std::uint64_t remaining, std::uint64_t send_len, std::uint64_t chunk) const noexcept;

  // The policy in effect: `automatic` resolved by params.per_send_quota, others themselves.
  PolicyKind effective() const noexcept { return effective_; }

  // robust with SO_SNDBUF < 2 MSS: a send >= SO_SNDBUF goes in one-MSS chunks (or whole where
  // SO_SNDBUF <= MSS) and stop-and-wait; the caller sets TCP_NODELAY while it sends it (nodelay_for(len)) and restores it after its last byte
  // is accepted (§8).
  bool wants_nodelay() const noexcept { return nodelay_; }
  // robust with SO_SNDBUF < 2 MSS: a send below the quota that finds the quota full (would
  // block) gets TCP_NODELAY until its last byte is accepted. No later send can join the short
  // segment Nagle holds, so Nagle only waits for the receiver's delayed ACK (RFC 896; §1, §8).
  // `send_len`: the whole send's length. Under Minshall's Nagle (SocketParams::minshall_nagle)
  // with M < S < 2M only a send of at least S / 2 (the rule and its reason: kRobustRegimes).
  bool nodelay_when_blocked(std::size_t send_len) const noexcept {
    return nodelay_blocked_ && static_cast<std::int64_t>(send_len) >= nodelay_blocked_min_;
  }
  bool splits(std::size_t len) const noexcept { return len > 0 && next_chunk(len) < len; }
  bool nodelay_for(std::size_t len) const noexcept {
    return nodelay_ && (splits(len) || static_cast<std::int64_t>(len) >= params_.sndbuf);
  }

  // SO_SNDBUF the policy recommends for sends of `send_len` bytes: params().sndbuf unless the
  // policy is robust, params().allow_raise_sndbuf and send_len >= sndbuf, or under Minshall's
  // Nagle any send with M < sndbuf < 2M (then at least min(64 KiB, 16 MSS); for M > 4 KiB: S <= M,
  // and M < S < 2M where the peer's window holds the raise or for a send below S under Minshall's
  // Nagle, to min(64 KiB, 4 MSS); none where that is below 2 MSS: KB823764's workaround, §1, §8).
  // Never lowers it.
  std::int64_t recommended_sndbuf(std::size_t send_len) const noexcept;

 private:
  PolicyKind kind_ = PolicyKind::none;
  PolicyKind effective_ = PolicyKind::none;
  bool nodelay_ = false;
  bool nodelay_blocked_ = false;
  std::int64_t nodelay_blocked_min_ = 0;  // shortest send nodelay_when_blocked applies to
  bool seedlike_ = false;  // robust with M < S < 5M, or S > M at jumbo MSS: the seed's rules
  SocketParams params_{};
  std::int64_t base_ = 0;
};

// Cap of the SO_SNDBUF robust recommends from 16 MSS (Windows 10's default, §1).
inline constexpr std::int64_t kRobustRaisedSndbuf = 65536;

// One line when `kind` leaves a send of `send_len` bytes whole or cannot meet its goals for it,
// and why (issue 10 point 6): MSS >= SO_SNDBUF (the seed switches off), send < SO_SNDBUF (nothing
// to split), SO_SNDBUF < 2 MSS (pieces or the tail shorter than one MSS), pieces of exactly
// SO_SNDBUF (cygwin), no per-send quota (auto), not a stream socket, unknown SO_SNDBUF.
// nullopt when the policy acts as designed (and always for none, which never acts).
std::optional<std::string> policy_notice(PolicyKind kind, const SocketParams& params, std::size_t send_len);

}  // namespace ackstall::core
