// --sndbuf-rule keep|raise|ideal-backlog: what a sender does with SO_SNDBUF beside the cut
// (core::SndbufRule, core/chunk_policy.h), on ttcp and plan. Its older spellings stay: the flag
// --raise-sndbuf (raise) and the policy name isb (seed with ideal-backlog); two that differ are
// a usage error naming both.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/error.h"
#include "ackstall/net/ideal_send_backlog.h"

namespace ackstall::tools {

struct SndbufRuleFlags {
  std::string rule;    // --sndbuf-rule: "" when absent
  bool raise = false;  // --raise-sndbuf
};

// Registers --sndbuf-rule and --raise-sndbuf; `raise_help` says what raise means for the command.
void add_sndbuf_rule_options(CLI::App& cmd, SndbufRuleFlags& flags, const std::string& raise_help);

// The one rule the flags and the chosen policy (`policy`, named on the command line by
// `policy_flag`, e.g. "--chunk isb") ask for; `command` prefixes the error ("ttcp").
core::Result<core::SndbufRule> resolve_sndbuf_rule(const SndbufRuleFlags& flags, const net::NetPolicy& policy,
                                                   const std::string& policy_flag, const std::string& command);

}  // namespace ackstall::tools
