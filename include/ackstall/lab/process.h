// ackstall lab: running the system's tools (ip, tc, sysctl) without a shell.
#pragma once

#include <string>
#include <vector>

#include "ackstall/core/error.h"

namespace ackstall::lab {

// Runs argv[0] (searched in PATH) with argv, stdin from /dev/null, stdout and stderr captured.
// The child starts with no blocked signals and default SIGINT/SIGTERM, even while a
// SignalGuard blocks them here. Success is exit status 0; otherwise an Error, one line:
//   "CMD ARGS: exit N: first line of its output"  (or "... : exit N" when it printed nothing)
//   "CMD ARGS: killed by signal N"
//   "CMD ARGS: No such file or directory"          (it could not be started)
core::Result<void> run_command(const std::vector<std::string>& argv);

// A command left running in the background (a capture during a matrix cell): started with
// stdin, stdout and stderr on /dev/null; stop() (or the destructor) sends SIGTERM and reaps it.
class BackgroundCommand {
 public:
  static core::Result<BackgroundCommand> start(const std::vector<std::string>& argv);
  BackgroundCommand(BackgroundCommand&& o) noexcept : pid_(o.pid_), what_(std::move(o.what_)) { o.pid_ = -1; }
  BackgroundCommand& operator=(BackgroundCommand&&) = delete;
  BackgroundCommand(const BackgroundCommand&) = delete;
  ~BackgroundCommand() { (void)stop(); }
  // Whether it is still running (false once it exited on its own: the caller may say why).
  bool running();
  // SIGTERM, then waits for it. Success: it exited 0 or by that SIGTERM.
  core::Result<void> stop();

 private:
  BackgroundCommand(int pid, std::string what) : pid_(pid), what_(std::move(what)) {}
  int pid_ = -1;
  std::string what_;
};

// "CMD ARG ARG": argv joined by spaces, as the errors name a command.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace ackstall::lab
