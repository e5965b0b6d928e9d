// The subcommand table: add a subcommand by writing cmd_<name>.cc and listing it here.
#pragma once

#include <array>

#include "app.h"

namespace ackstall::tools {

inline constexpr std::array kCommands = {
    &add_plan_command,
    &add_scan_command,
    &add_probe_command,
    &add_sim_command,
    &add_ttcp_command,
    &add_lab_command,
};

}  // namespace ackstall::tools
