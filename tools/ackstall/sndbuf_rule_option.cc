// --sndbuf-rule and its older spellings (sndbuf_rule_option.h).
#include "sndbuf_rule_option.h"

#include "choice_option.h"

#include <optional>

namespace ackstall::tools {

void add_sndbuf_rule_options(CLI::App& cmd, SndbufRuleFlags& flags, const std::string& raise_help) {
  cmd.add_option("--sndbuf-rule", flags.rule,
                 "what the sender does with SO_SNDBUF beside the cut: keep (default), raise (" + raise_help +
                     ") or ideal-backlog (it follows Windows' ideal send backlog; elsewhere keep)")
      ->check(one_of(core::sndbuf_rule_names()));
  cmd.add_flag("--raise-sndbuf", flags.raise, "the same as --sndbuf-rule raise (old spelling)");
}

core::Result<core::SndbufRule> resolve_sndbuf_rule(const SndbufRuleFlags& flags, const net::NetPolicy& policy,
                                                   const std::string& policy_flag, const std::string& command) {
  std::optional<core::SndbufRule> rule;
  std::string from;
  const auto take = [&](core::SndbufRule r, const std::string& by) -> core::Result<void> {
    if (rule && *rule != r) return core::fail(command + ": " + by + " contradicts " + from + " (one SO_SNDBUF rule: --sndbuf-rule)");
    rule = r;
    from = by;
    return {};
  };
  if (policy.sndbuf != core::SndbufRule::keep) {
    if (auto r = take(policy.sndbuf, policy_flag); !r) return tl::unexpected(r.error());
  }
  if (flags.raise) {
    if (auto r = take(core::SndbufRule::raise, "--raise-sndbuf"); !r) return tl::unexpected(r.error());
  }
  if (!flags.rule.empty()) {
    if (auto r = take(*core::parse_sndbuf_rule(flags.rule), "--sndbuf-rule " + flags.rule); !r)
      return tl::unexpected(r.error());
  }
  return rule.value_or(core::SndbufRule::keep);
}

}  // namespace ackstall::tools
