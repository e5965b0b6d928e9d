// The subcommand table: add a subcommand by writing cmd_<name>.cc and listing it here.
// plan, probe and ttcp exist on every platform; sim and scan where the simulator and pcap
// libraries are built (ACKSTALL_HAVE_SIM); lab on Linux (ACKSTALL_HAVE_LAB: network namespaces).
// tools/ackstall/CMakeLists.txt defines both.
#pragma once

#include <array>
#include <string_view>

#include "app.h"

namespace ackstall::tools {

inline constexpr std::array kCommands = {
    &add_plan_command,
#if defined(ACKSTALL_HAVE_SIM)
    &add_scan_command,
#endif
    &add_probe_command,
#if defined(ACKSTALL_HAVE_SIM)
    &add_sim_command,
#endif
    &add_ttcp_command,
#if defined(ACKSTALL_HAVE_LAB)
    &add_lab_command,
    &add_watch_command,
#endif
};

// Why a subcommand of the full (Linux) tool is missing from this build; empty if it is not one.
constexpr std::string_view absent_command_reason([[maybe_unused]] std::string_view name) {
#if !defined(ACKSTALL_HAVE_SIM)
  if (name == "sim" || name == "scan") return "it needs the simulator and pcap libraries (Linux build)";
#endif
#if !defined(ACKSTALL_HAVE_LAB)
  if (name == "lab") return "it needs Linux network namespaces";
  if (name == "watch") return "it needs Linux's inet_diag";
#endif
  return {};
}

}  // namespace ackstall::tools
