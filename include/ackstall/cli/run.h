// ackstall/cli/run.h — the `ackstall` command line as a testable function: the interface of the
// CLI library (tools/ackstall, target ackstall_cli), what main() and the CLI's tests call.
//
// run() parses argv, dispatches to one subcommand and returns the process exit code:
//   0 success, 1 runtime failure (network, I/O), 2 bad usage (unknown flag, bad value).
// Every error is one line on `err`, prefixed "ackstall: ".
#pragma once

#include <istream>
#include <ostream>
#include <span>

namespace ackstall::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Io {
  std::ostream& out;
  std::ostream& err;
  std::istream* in = nullptr;  // stdin, for commands that read data (ttcp -t without -s)
};

int run(std::span<const char* const> argv, Io io);

}  // namespace ackstall::tools
