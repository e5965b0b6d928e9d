// sim's self-description: every scenario key with its type, unit, default and grammar
// (`sim --list-keys`), and one scenario fully resolved with where each value came from
// (`sim --show-config`).
#pragma once

#include <iosfwd>
#include <string_view>

#include "ackstall/scenario/scenario.h"

namespace ackstall::tools {

void list_keys(std::ostream& out, bool json);
void show_config(std::ostream& out, const scenario::Scenario& sc, bool json);

// scenario::parse_scenario names an override's error "[SOURCE: ]override KEY: ..." (no flag,
// include/ackstall/scenario/scenario.h); the command line's overrides are its --set, so this
// names the flag: "[SOURCE: ]--set KEY: ...". Any other error is returned unchanged.
core::Error name_set_flag(core::Error e, std::string_view source);

}  // namespace ackstall::tools
