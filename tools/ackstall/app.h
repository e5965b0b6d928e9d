// ackstall/tools/app.h — the CLI's own parts: the subcommands' registration and the one way a
// command reports an error. Its public interface (run(), Io, the exit codes) is
// include/ackstall/cli/run.h; main() is a thin wrapper around run().
#pragma once

#include "ackstall/cli/run.h"
#include "ackstall/core/error.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string_view>

namespace ackstall::tools {

// A subcommand registers its options on `app` and returns the action to run after parsing.
using Action = std::function<int(Io)>;
using CommandFactory = void (*)(CLI::App& parent, Action& selected);

int run(std::span<const char* const> argv, Io io);

// A command's error: one line "ackstall: WHAT" on io.err; returns `code` (the exit code). Every
// error a command prints goes through one of these two.
inline int fail(Io io, std::string_view what, int code = kExitFailure) {
  io.err << "ackstall: " << what << '\n';
  return code;
}
// A library's error (core/error.h), optionally after CONTEXT ("lab down: ...").
inline int fail(Io io, const core::Error& error, int code = kExitFailure, std::string_view context = {}) {
  io.err << "ackstall: " << context << error.message() << '\n';
  return code;
}

// Subcommands (one file each: cmd_<name>.cc).
void add_plan_command(CLI::App& parent, Action& selected);
void add_scan_command(CLI::App& parent, Action& selected);
void add_probe_command(CLI::App& parent, Action& selected);
void add_sim_command(CLI::App& parent, Action& selected);
void add_ttcp_command(CLI::App& parent, Action& selected);
void add_lab_command(CLI::App& parent, Action& selected);
void add_watch_command(CLI::App& parent, Action& selected);

}  // namespace ackstall::tools
