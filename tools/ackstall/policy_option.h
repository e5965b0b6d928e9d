// The --policy option shared by every subcommand that splits sends.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "ackstall/core/chunk_policy.h"

namespace ackstall::tools {

// Binds `name` to `target`; the value is checked against the policy names at parse time.
inline CLI::Option* add_policy_option(CLI::App& cmd, core::PolicyKind& target,
                                      const std::string& name = "--policy") {
  return cmd
      .add_option_function<std::string>(
          name, [&target](const std::string& v) { target = *core::parse_policy_kind(v); },
          "chunking policy: seed (default), cygwin or none")
      ->check(CLI::IsMember(core::policy_names()));
}

}  // namespace ackstall::tools
