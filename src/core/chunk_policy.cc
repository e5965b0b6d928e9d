#include "ackstall/core/chunk_policy.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <string>

// The Cygwin patch's piece function (contrib/cygwin/), C99: cygwin-patch's cut.
#include "cygwin_piece.h"

namespace ackstall::core {

namespace {
// "{}" placeholders filled in order (GCC 12, the project's compiler, has no std::format).
std::string piece(std::string_view v) { return std::string(v); }
std::string piece(const std::string& v) { return v; }
std::string piece(std::int64_t v) { return std::to_string(v); }
template <class... A>
std::string format(std::string_view f, const A&... args) {
  std::string out;
  const std::string parts[] = {piece(args)...};
  std::size_t i = 0;
  for (std::size_t at = 0;;) {
    const std::size_t k = f.find("{}", at);
    if (k == std::string_view::npos || i == sizeof...(A)) {
      out.append(f.substr(at));
      return out;
    }
    out.append(f.substr(at, k - at)).append(parts[i++]);
    at = k + 2;
  }
}
// Jumbo MSS for robust: where 16 MSS of quota would pass the 64 KiB cap (MSS > 4 KiB), so
// recommended_sndbuf cannot reach it.
constexpr bool cap_binds(std::int64_t mss) noexcept { return 16 * mss > kRobustRaisedSndbuf; }

// cygwin-patch: the patch's cygwin_piece with WMEM = sndbuf (Cygwin's wmem () is an int) and
// MSS = mss (a DWORD from getsockopt (TCP_MAXSEG)).
unsigned clamp_uint(std::int64_t v) noexcept {
  return static_cast<unsigned>(std::clamp<std::int64_t>(v, 0, UINT_MAX));
}
std::size_t patch_piece(std::size_t remaining, std::size_t send_len, const SocketParams& p) noexcept {
  return static_cast<std::size_t>(
      cygwin_piece(remaining, send_len, clamp_uint(p.sndbuf), clamp_uint(p.mss), p.sndbuf_set ? 1 : 0));
}

// robust's cut, as a table of regimes by S = SO_SNDBUF against M = MSS: the first row whose
// `applies` holds decides. `nodelay`: TCP_NODELAY for the span of a send >= S (nodelay_for);
// `nodelay_blocked`: also for a smaller send that finds the quota full (nodelay_when_blocked).
enum class Cut : std::uint8_t {
  whole,    // no split
  seed,     // the seed's get_chunk: largest whole MSS below S, shrunk by one MSS for a short tail
  quarter,  // M * floor(S / 4M); the tail rides along while the piece stays below min(S, base + M)
};
// Which sends below S that find the quota full get TCP_NODELAY until their last byte is
// accepted (nodelay_when_blocked). Once AFD holds its quota no later send can join the short
// segment Nagle holds, and a receiver that holds a lone segment's ACK for its timer holds the
// quota with it (RFC 896, RFC 1122 4.2.3.2; KB214397: §1, §3, §4).
enum class Blocked : std::uint8_t {
  never,
  always,
  // RFC 896's Nagle (Windows, BSD) holds any short segment while data is unacknowledged: every
  // send. Minshall's (Linux tcp_minshall_check) lets one short segment out per round trip, which
  // a stream of small sends keeps coalescing; it stalls where the quota holds about two sends,
  // so only a send of at least S / 2 (STACKS.md §8: TCP_NODELAY on for smaller sends there
  // splits them into more, shorter segments than the stalls cost).
  classic_or_half,
  half,  // a send of at least S / 2 under either Nagle: the quota holds at most two of them
};
struct Regime {
  bool (*applies)(std::int64_t s, std::int64_t m);
  Cut cut;
  bool nodelay;
  Blocked nodelay_blocked;
};
constexpr Regime kRobustRegimes[] = {
    // S <= M: no whole-MSS piece fits below the quota, and smaller pieces meet the receiver's
    // delayed-ACK rule as surely as the whole send (Linux __tcp_ack_snd_check, BSD tcp_output:
    // STACKS.md §3, §4); Nagle must not hold the short last segment (RFC 896, KB214397: §1),
    // nor, once the quota is full, a short send that no later send can fill to one MSS.
    {[](std::int64_t s, std::int64_t m) { return s <= m; }, Cut::whole, true, Blocked::always},
    // M < S < 2M: one-MSS pieces, two in flight, which a receiver ACKs at once as a pair
    // (RFC 1122 4.2.3.2); TCP_NODELAY so that Nagle does not hold the short tail (§0, §1), and
    // for a short send once the quota is full (Blocked::classic_or_half).
    {[](std::int64_t s, std::int64_t m) { return s < 2 * m; }, Cut::seed, true, Blocked::classic_or_half},
    // 2M <= S < 5M: so few segments of quota that two large pieces in flight matter more than
    // the number queued: the seed's rule (§0); TCP_NODELAY for a send of S / 2 or more that
    // finds the quota full (Blocked::half).
    {[](std::int64_t s, std::int64_t m) { return s < 5 * m; }, Cut::seed, false, Blocked::half},
    // Jumbo MSS (> 4 KiB): quarter-quota pieces of one or a few segments lock into one segment
    // per round trip against a receive window below two segments; the seed's pieces end each
    // send with a short segment after which the reader drains (STACKS.md §8).
    {[](std::int64_t, std::int64_t m) { return cap_binds(m); }, Cut::seed, false, Blocked::never},
    // S >= 5M: about a quarter of the quota in whole MSS, so that >= 3 pieces are still queued
    // when AFD releases one and a late wake-up of the sender does not idle the link (§1, §8).
    {[](std::int64_t, std::int64_t) { return true; }, Cut::quarter, false, Blocked::never},
};
constexpr const Regime& robust_regime(std::int64_t s, std::int64_t m) noexcept {
  for (const Regime& r : kRobustRegimes)
    if (r.applies(s, m)) return r;
  return kRobustRegimes[std::size(kRobustRegimes) - 1];
}
}  // namespace

std::optional<PolicyKind> parse_policy_kind(std::string_view name) noexcept {
  for (const PolicyKind k : kPolicyKinds)
    if (to_string(k) == name) return k;
  return std::nullopt;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const PolicyKind k : kPolicyKinds) names.emplace_back(to_string(k));
  return names;
}

std::string_view to_string(PolicyKind kind) noexcept {
  switch (kind) {
    case PolicyKind::none: return "none";
    case PolicyKind::seed: return "seed";
    case PolicyKind::cygwin: return "cygwin";
    case PolicyKind::cygwin_patch: return "cygwin-patch";
    case PolicyKind::robust: return "robust";
    case PolicyKind::automatic: return "auto";
  }
  return "?";
}

std::optional<SndbufRule> parse_sndbuf_rule(std::string_view name) noexcept {
  for (const SndbufRule r : kSndbufRules)
    if (to_string(r) == name) return r;
  return std::nullopt;
}

std::string_view to_string(SndbufRule rule) noexcept {
  switch (rule) {
    case SndbufRule::keep: return "keep";
    case SndbufRule::raise: return "raise";
    case SndbufRule::ideal_backlog: return "ideal-backlog";
  }
  return "?";
}

std::vector<std::string> sndbuf_rule_names() {
  std::vector<std::string> names;
  for (const SndbufRule r : kSndbufRules) names.emplace_back(to_string(r));
  return names;
}

ChunkPolicy::ChunkPolicy(PolicyKind kind, SocketParams params) noexcept : kind_(kind) {
  update(params);
}

void ChunkPolicy::update(SocketParams params) noexcept {
  params_ = params;
  base_ = 0;
  nodelay_ = false;
  nodelay_blocked_ = false;
  nodelay_blocked_min_ = 0;
  seedlike_ = false;
  // auto: a plain send where the kernel charges no per-send quota (Linux/BSD/macOS: the socket
  // buffer is freed per ACKed byte, sbdrop/tcp_clean_rtx_queue), robust under Winsock AFD (§1).
  effective_ = kind_ == PolicyKind::automatic ? (params.per_send_quota ? PolicyKind::robust : PolicyKind::none)
                                              : kind_;
  if (!params.stream || params.sndbuf <= 0) return;  // seed: "Not TCP, don't chunk"
  switch (effective_) {
    case PolicyKind::none:
    case PolicyKind::automatic:
      break;
    case PolicyKind::robust: {
      if (params.mss <= 0) break;
      const std::int64_t s = params.sndbuf, m = params.mss;
      const Regime& r = robust_regime(s, m);
      nodelay_ = r.nodelay;
      nodelay_blocked_ = r.nodelay_blocked != Blocked::never;
      nodelay_blocked_min_ =
          r.nodelay_blocked == Blocked::half || (r.nodelay_blocked == Blocked::classic_or_half && params.minshall_nagle)
              ? (s + 1) / 2
              : 0;
      seedlike_ = r.cut == Cut::seed;
      base_ = r.cut == Cut::whole   ? 0
              : r.cut == Cut::seed  ? m * ((s - 1) / m)
                                    : m * std::max<std::int64_t>(1, s / (4 * m));
      break;
    }
    case PolicyKind::seed:
      // seed, update_chunk: newchunk = mss*((sndbuf-1)/mss)
      if (params.mss > 0) base_ = params.mss * ((params.sndbuf - 1) / params.mss);
      break;
    case PolicyKind::cygwin:
      // Cygwin send_internal: if (out_len > wmem ()) out_len = wmem (); (chunk_policy.h)
      base_ = params.sndbuf;
      break;
    case PolicyKind::cygwin_patch:
      // The piece of a send too long to go whole (next_chunk asks cygwin_piece every time).
      base_ = static_cast<std::int64_t>(patch_piece(SIZE_MAX, SIZE_MAX, params));
      break;
  }
}

std::size_t ChunkPolicy::next_chunk(std::size_t remaining, std::size_t send_len) const noexcept {
  if (base_ <= 0 || remaining == 0) return remaining;
  const auto base = static_cast<std::size_t>(base_);
  switch (effective_) {
    case PolicyKind::robust: {
      const auto sndbuf = static_cast<std::size_t>(params_.sndbuf);
      const auto mss = static_cast<std::size_t>(params_.mss);
      if (seedlike_) {  // Cut::seed: the seed's get_chunk (§0)
        if (remaining < sndbuf) return remaining;
        if (remaining - base < mss && base > mss) return base - mss;
        return base;
      }
      // Cut::quarter: the tail rides along while the piece stays below S and base + M.
      if (remaining < std::min(sndbuf, base + mss)) return remaining;
      return base;
    }
    case PolicyKind::seed: {
      // seed, get_chunk: if (tosend<sndbuf) newchunk = 0;
      //                  else if (tosend-chunk<mss && chunk>mss) newchunk -= mss;
      const auto sndbuf = static_cast<std::size_t>(params_.sndbuf);
      const auto mss = static_cast<std::size_t>(params_.mss);
      if (remaining < sndbuf) return remaining;
      // remaining >= sndbuf > base, so remaining - base cannot underflow.
      if (remaining - base < mss && base > mss) return base - mss;
      return base;
    }
    case PolicyKind::cygwin:
      return std::min(remaining, base);
    case PolicyKind::cygwin_patch:
      return patch_piece(remaining, send_len, params_);
    case PolicyKind::none:
    case PolicyKind::automatic:
      break;
  }
  return remaining;
}

std::int64_t ChunkPolicy::recommended_sndbuf(std::size_t send_len) const noexcept {
  const std::int64_t cur = params_.sndbuf;
  if (effective_ != PolicyKind::robust || !params_.allow_raise_sndbuf || !params_.stream) return cur;
  const std::int64_t m = std::max<std::int64_t>(1, params_.mss);
  // Only sends that meet KB823764's trigger (a send >= SO_SNDBUF) need it, with one exception:
  // under Minshall's Nagle (Linux tcp_minshall_check) a quota between one and two MSS holds one
  // short segment and the sends behind it, and a stream of sends below the quota stalls on the
  // receiver's delayed ACK; TCP_NODELAY would end that only by splitting such a stream into more,
  // shorter segments (nodelay_when_blocked's Blocked::classic_or_half). A quota of whole segments
  // lets Nagle coalesce them into full ones instead (docs/STACKS.md §8).
  const bool below_quota = static_cast<std::int64_t>(send_len) < cur;
  const bool small_sends_under_minshall = below_quota && params_.minshall_nagle && cur > m && cur < 2 * m;
  if (below_quota && !small_sends_under_minshall) return cur;
  // KB823764 (§1) lists a larger SO_SNDBUF as a workaround. robust needs S >= 2 MSS (the seed's
  // condition for whole-MSS chunks below the quota, §0) and about 16 segments of quota so that a
  // late wake-up still finds chunks queued (§8), capped at 64 KiB (Windows 10's default, §1)
  // where the cap still reaches 2 MSS.
  std::int64_t want = std::min(kRobustRaisedSndbuf, 16 * m);
  if (cap_binds(m)) {
    // Jumbo MSS (> 4 KiB): the cap keeps the raise below 16 segments; 4M reaches the seed's
    // two-piece rule (§0). Raise where no whole MSS fits below the quota (S <= M). For
    // M < S < 2M only where the peer's window holds the raised quota: against a smaller window
    // the larger quota only queues behind it (§8). Unknown window (0): no raise. Small sends
    // under Minshall's Nagle (above) queue behind the window as whole segments either way.
    want = std::min(kRobustRaisedSndbuf, 4 * m);
    if (cur > m && cur < 2 * m && 2 * m <= kRobustRaisedSndbuf)
      return params_.peer_window >= want || small_sends_under_minshall ? std::max(cur, want) : cur;
    if (cur > m && (2 * m <= kRobustRaisedSndbuf || cur >= 2 * m)) return cur;
    // MSS > 32 KiB (Linux loopback's 65483): no raise within the cap reaches 2 MSS, so the cap
    // gives way for S < 2M and the quota becomes 4 MSS, as at jumbo MSS (§8).
    if (2 * m > kRobustRaisedSndbuf) want = 4 * m;
  }
  if (want < 2 * m) return cur;
  return std::max(cur, want);
}

std::optional<std::string> policy_notice(PolicyKind kind, const SocketParams& p, std::size_t send_len) {
  const ChunkPolicy policy(kind, p);
  const PolicyKind eff = policy.effective();
  const std::string name(to_string(kind));
  if (eff == PolicyKind::none) {
    if (kind == PolicyKind::automatic)
      return format("{}: the kernel charges no per-send quota (SO_SNDBUF is freed per ACKed byte): "
                         "plain send, nothing to split", name);
    return std::nullopt;  // none never acts: no notice
  }
  if (!p.stream) return format("{}: not a TCP stream socket: the send goes out whole", name);
  if (p.sndbuf <= 0) return format("{}: SO_SNDBUF unknown: the send goes out whole", name);
  const std::int64_t s = p.sndbuf, m = p.mss;
  const auto len = static_cast<std::int64_t>(send_len);
  const std::string eff_name = kind == eff ? name : format("{} ({})", name, to_string(eff));
  switch (eff) {
    case PolicyKind::seed:
      if (m >= s)
        return format("{}: MSS {} >= SO_SNDBUF {}: the seed policy does not chunk; a send >= SO_SNDBUF "
                           "goes out whole and can stall (KB823764)", eff_name, m, s);
      if (len < s)
        return format("{}: send {} < SO_SNDBUF {}: sent whole (it cannot trigger KB823764)", eff_name,
                           len, s);
      if (s < 2 * m)
        return format("{}: SO_SNDBUF {} < 2 MSS ({}): the last chunk may be shorter than one MSS and "
                           "wait for Nagle", eff_name, s, 2 * m);
      return std::nullopt;
    case PolicyKind::cygwin:
      if (len < s)
        return format("{}: send {} < SO_SNDBUF {}: sent whole", eff_name, len, s);
      return format("{}: pieces of exactly SO_SNDBUF {} still meet KB823764's trigger (a send >= "
                         "SO_SNDBUF on a nonblocking socket)", eff_name, s);
    case PolicyKind::cygwin_patch:
      if (m >= s)
        return format("{}: MSS {} >= SO_SNDBUF {}: no whole-MSS piece fits below it: pieces of exactly "
                      "SO_SNDBUF, as cygwin (KB823764)", eff_name, m, s);
      if (len < s && !policy.splits(send_len))
        return format("{}: send {} < SO_SNDBUF {}: sent whole", eff_name, len, s);
      if (s < 2 * m)
        return format("{}: SO_SNDBUF {} < 2 MSS ({}): the last piece may be shorter than one MSS and "
                      "wait for Nagle", eff_name, s, 2 * m);
      return std::nullopt;
    case PolicyKind::robust: {
      std::string raise;
      if (const auto rec = policy.recommended_sndbuf(send_len); rec > s)
        raise = format("; SO_SNDBUF {} -> {} recommended (KB823764)", s, rec);
      if (len < s) return format("{}: send {} < SO_SNDBUF {}: sent whole", eff_name, len, s);
      std::string advice = raise;
      if (raise.empty())
        advice = !p.allow_raise_sndbuf ? std::string("; allow raising SO_SNDBUF (KB823764) to avoid it")
                 : p.peer_window > 0   ? format("; SO_SNDBUF kept: the peer's window {} cannot hold a raised quota",
                                                p.peer_window)
                                       : std::string("; SO_SNDBUF kept: the peer's window is unknown");
      if (m >= s)
        return format("{}: MSS {} >= SO_SNDBUF {}: no whole-MSS piece fits below the quota; the send goes "
                      "whole with TCP_NODELAY for its span; a delayed-ACK stall can remain (KB823764){}",
                      eff_name, m, s, advice);
      if (s < 2 * m)
        return format("{}: SO_SNDBUF {} < 2 MSS ({}): one-MSS chunks with TCP_NODELAY for the send's span, "
                      "two in flight at most; throughput stays below a larger buffer's{}",
                      eff_name, s, 2 * m, advice);
      if (!raise.empty()) return eff_name + ":" + raise.substr(1);
      return std::nullopt;
    }
    case PolicyKind::none:
    case PolicyKind::automatic:
      break;
  }
  return std::nullopt;
}

std::vector<std::size_t> ChunkPolicy::plan(std::size_t len) const {
  std::vector<std::size_t> out;
  for (std::size_t left = len; left > 0;) {
    const std::size_t n = next_chunk(left, len);
    out.push_back(n);
    left -= n;
  }
  return out;
}

std::uint64_t ChunkPolicy::run_length(std::uint64_t remaining, std::uint64_t send_len,
                                      std::uint64_t chunk) const noexcept {
  const auto same = [&](std::uint64_t k) {  // the k-th chunk from here (0-based) is still `chunk`
    return k * chunk < remaining &&
           next_chunk(static_cast<std::size_t>(remaining - k * chunk), static_cast<std::size_t>(send_len)) == chunk;
  };
  std::uint64_t good = 0, bad = 1;  // same(good), !same(bad) once found
  while (same(bad)) {
    good = bad;
    bad = bad > remaining / 2 ? remaining : bad * 2;
    if (bad * chunk >= remaining) break;
  }
  while (bad - good > 1) {
    const std::uint64_t mid = good + (bad - good) / 2;
    (same(mid) ? good : bad) = mid;
  }
  return good + 1;
}

}  // namespace ackstall::core
