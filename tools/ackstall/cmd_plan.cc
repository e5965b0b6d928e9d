// ackstall plan: the chunk sizes a policy produces for one send, streamed (a 64 GiB send costs
// no memory), or counted per chunk size (--summary).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "choice_option.h"
#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/link_framing.h"
#include "ackstall/core/plural.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "app.h"
#include "size_option.h"
#include "sndbuf_rule_option.h"

namespace ackstall::tools {
namespace {

struct PlanOptions {
  std::int64_t mss = 0, sndbuf = 0;
  std::uint64_t len = 0;
  std::int64_t peer_window = 0;  // 0: unknown
  std::string policy = "seed";
  SndbufRuleFlags sndbuf_rule;  // --sndbuf-rule, --raise-sndbuf
  bool json = false;
  bool summary = false;
};

constexpr std::uint64_t kMaxLen = std::uint64_t{1} << 40;  // 1 TiB
constexpr std::int64_t kMaxMss = core::mss_for_mtu(65535);  // loopback: 65495

int execute(const PlanOptions& o, Io io) {
  const auto net_policy = net::parse_net_policy(o.policy);
  if (!net_policy) return fail(io, "--policy " + o.policy + ": unknown policy", kExitUsage);
  const auto rule = resolve_sndbuf_rule(o.sndbuf_rule, *net_policy, "--policy " + o.policy, "plan");
  if (!rule) return fail(io, rule.error().message(), kExitUsage);
  core::SocketParams params{o.sndbuf, o.mss, true};
  params.allow_raise_sndbuf = *rule == core::SndbufRule::raise;
  params.peer_window = o.peer_window;
  core::ChunkPolicy policy(net_policy->core, params);
  // Notes go to stderr so that stdout stays one chunk per line.
  if (*rule == core::SndbufRule::ideal_backlog)
    fmt::print(io.err,
               "ackstall: note: ideal-backlog sets SO_SNDBUF to the ideal send backlog (Windows) and chunks "
               "under it; plan has no socket to query, so --sndbuf stands for the backlog\n");
  if (auto notice = core::policy_notice(net_policy->core, policy.params(), static_cast<std::size_t>(o.len)))
    fmt::print(io.err, "ackstall: note: {}\n", *notice);
  // --sndbuf-rule raise: plan under the SO_SNDBUF the policy recommends, as ChunkedSender sets it.
  if (const std::int64_t want = policy.recommended_sndbuf(static_cast<std::size_t>(o.len)); want > params.sndbuf) {
    params.sndbuf = want;
    policy.update(params);
  }

  // Walk the send once: each chunk is printed (or counted) as it is made.
  std::map<std::uint64_t, std::uint64_t> sizes;  // chunk size -> count (few distinct sizes)
  std::uint64_t chunks = 0;
  const bool list = !o.summary;
  if (list && o.json) io.out << "{\"chunks\":[";
  for (std::uint64_t left = o.len; left > 0;) {
    const std::uint64_t c = policy.next_chunk(static_cast<std::size_t>(left), static_cast<std::size_t>(o.len));
    if (c == 0 || c > left) return fail(io, fmt::format("policy returned a chunk of {} with {} left", c, left));
    std::uint64_t run = 1;
    if (list) {
      if (o.json) io.out << (chunks ? "," : "") << c;
      else io.out << c << '\n';
    } else {
      run = policy.run_length(left, o.len, c);  // tests/core/chunk_policy_test.cc: as the walk
    }
    sizes[c] += run;
    chunks += run;
    left -= run * c;
  }
  if (o.json) {
    nlohmann::json summary = nlohmann::json::array();
    for (const auto& [size, count] : sizes) summary.push_back({{"size", size}, {"count", count}});
    nlohmann::json j = {{"policy", o.policy},      {"mss", o.mss},
                        {"sndbuf", o.sndbuf},      {"sndbuf_used", params.sndbuf}, {"len", o.len},
                        {"base_chunk", policy.base_chunk()}, {"count", chunks},
                        {"sizes", summary},        {"nodelay", policy.nodelay_for(static_cast<std::size_t>(o.len))}};
    if (list) io.out << "]," << j.dump().substr(1) << '\n';
    else io.out << j.dump(2) << '\n';
  } else if (o.summary) {
    fmt::print(io.out, "{} of {} bytes (policy {}, base chunk {}{})\n", core::plural(chunks, "chunk"), o.len, o.policy,
               policy.base_chunk(),
               params.sndbuf != o.sndbuf ? fmt::format(", SO_SNDBUF raised to {}", params.sndbuf) : "");
    for (const auto& [size, count] : sizes) fmt::print(io.out, "{:>12} x {}\n", size, count);
  }
  return kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& parent, Action& selected) {
  auto opt = std::make_shared<PlanOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "plan", "Print the chunk sizes a policy produces for one send, one per line");
  add_size_option(*cmd, "--mss", opt->mss, "maximum segment size", 1, kMaxMss)->required();
  add_size_option(*cmd, "--sndbuf", opt->sndbuf, "tracked SO_SNDBUF (Winsock quota)", 1, kMaxSocketBuffer)
      ->required();
  add_size_option(*cmd, "--len", opt->len, "bytes in the application's send", 0, kMaxLen)->required();
  cmd->add_option("--policy", opt->policy,
                  "chunking policy: " + [] {
                    std::string s;
                    for (const auto& n : net::net_policy_names()) s += (s.empty() ? "" : ", ") + n;
                    return s;
                  }() + " (default seed)")
      ->check(one_of(net::net_policy_names()));
  add_sndbuf_rule_options(*cmd, opt->sndbuf_rule,
                          "robust may raise it above a send it cannot split without a stall, KB823764; "
                          "plan under the raised value");
  add_size_option(*cmd, "--peer-window", opt->peer_window,
                  "the window the peer offers (TCP_INFO snd_wnd); with --raise-sndbuf at jumbo MSS robust raises "
                  "MSS < SO_SNDBUF < 2 MSS only where it holds the raised quota (default: unknown)",
                  1, kMaxSocketBuffer);
  cmd->add_flag("--summary", opt->summary, "count the chunks per size instead of listing them");
  cmd->add_flag("--json", opt->json, "print JSON instead of one chunk per line");
  cmd->callback([opt, &selected] { selected = [opt](Io io) { return execute(*opt, io); }; });
}

}  // namespace ackstall::tools
