// sim's --set errors named by the flag. The key listing and --show-config are
// ackstall/report/scenario_keys.h.
#pragma once

#include <string_view>

#include "ackstall/scenario/scenario.h"

namespace ackstall::tools {

// scenario::parse_scenario names an override's error "[SOURCE: ]override KEY: ..." (no flag,
// include/ackstall/scenario/scenario.h); the command line's overrides are its --set, so this
// names the flag: "[SOURCE: ]--set KEY: ...". Any other error is returned unchanged.
core::Error name_set_flag(core::Error e, std::string_view source);

}  // namespace ackstall::tools
