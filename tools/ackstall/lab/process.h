// ackstall lab: running the system's tools (ip, tc, sysctl) without a shell.
#pragma once

#include <string>
#include <vector>

#include "ackstall/core/error.h"

namespace ackstall::tools::lab {

// Runs argv[0] (searched in PATH) with argv, stdin from /dev/null, stdout and stderr captured.
// The child starts with no blocked signals and default SIGINT/SIGTERM, even while a
// SignalGuard blocks them here. Success is exit status 0; otherwise an Error, one line:
//   "CMD ARGS: exit N: first line of its output"  (or "... : exit N" when it printed nothing)
//   "CMD ARGS: killed by signal N"
//   "CMD ARGS: No such file or directory"          (it could not be started)
core::Result<void> run_command(const std::vector<std::string>& argv);

// "CMD ARG ARG": argv joined by spaces, as the errors name a command.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace ackstall::tools::lab
