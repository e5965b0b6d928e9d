// ackstall/net/ideal_send_backlog.h — the `isb` sending policy: the seed's chunking under a
// send-buffer quota that follows Windows' ideal send backlog.
//
// Windows (Vista SP1+) tells an application how much data it should keep queued on a TCP
// connection to fill the path: SIO_IDEAL_SEND_BACKLOG_QUERY (0..16 MB; docs/STACKS.md §1).
// curl queries it at most once a second and sets SO_SNDBUF to it (lib/cf-socket.c,
// win_update_sndbuf_size). ChunkedSender does the same (SenderOptions::follow_isb, on by
// default where `auto` resolves to robust) through its setsockopt wrapper, so the policy
// re-chunks under the new quota. `isb` is the seed policy following it (chunks stay below
// SO_SNDBUF: KB823764 is never triggered, and the quota is as large as the path wants).
//
// Where the query is not available (POSIX; Windows before Vista SP1) nothing is set and the
// sender runs the plain seed policy on the SO_SNDBUF it has: the fallback. Wine answers the
// query with a constant (docs/BENCHMARKS.md: 64 KiB), so under Wine `isb` is the seed policy at
// that SO_SNDBUF.
//
// Not a core::PolicyKind: the cut and SO_SNDBUF's handling are two choices (core::SndbufRule,
// core/chunk_policy.h); `isb` is the name kept for the pair {seed, ideal-backlog}
// (parse_net_policy, sender_options).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/path_probe.h"

namespace ackstall::net {

// The cut (a core policy) and what the sender does with SO_SNDBUF beside it. Parsed from
// "none" / "seed" / "cygwin" / "robust" / "auto" (SO_SNDBUF kept) or "isb", the alias of
// {seed, ideal-backlog}. nullopt otherwise.
struct NetPolicy {
  core::PolicyKind core = core::PolicyKind::seed;
  core::SndbufRule sndbuf = core::SndbufRule::keep;
  bool isb() const noexcept { return core == core::PolicyKind::seed && sndbuf == core::SndbufRule::ideal_backlog; }
  friend bool operator==(const NetPolicy&, const NetPolicy&) = default;
};
std::optional<NetPolicy> parse_net_policy(std::string_view name) noexcept;
// Every name parse_net_policy accepts: core::policy_names() and "isb" (for CLI choices).
std::vector<std::string> net_policy_names();
std::string_view to_string(const NetPolicy& p) noexcept;
// The sender options that run `p`: its core policy; ideal-backlog follows the ISB, raise allows
// the policy's SO_SNDBUF raise; keep leaves SenderOptions' default (`auto` on Windows follows
// the ISB).
SenderOptions sender_options(const NetPolicy& p) noexcept;

// One ISB reading: measured (the ioctl answered) or fallback (it failed: the source quotes why).
Finding<std::int64_t> query_ideal_send_backlog(SocketOps& ops, NativeSocket s);

}  // namespace ackstall::net
