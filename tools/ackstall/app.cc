#include "app.h"

#include <ostream>
#include <string>

#include "commands.h"

namespace ackstall::tools {

int run(std::span<const char* const> argv, Io io) {
  CLI::App app{"ackstall: reproduce, diagnose and fix TCP send stalls caused by send-buffer "
               "accounting meeting delayed ACKs",
               "ackstall"};
  app.require_subcommand(1);
  app.fallthrough(false);
  Action selected;
  for (CommandFactory add : kCommands) add(app, selected);
  // CLI11 reports a mistyped subcommand as "A subcommand is required": name it instead.
  const auto is_subcommand = [&app](const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({})) if (sub->check_name(name)) return true;
    return false;
  };
  if (argv.size() > 1 && argv[1][0] != '-' && !is_subcommand(argv[1])) {
    if (const std::string_view why = absent_command_reason(argv[1]); !why.empty()) {
      io.err << "ackstall: '" << argv[1] << "' is not in this build: " << why << '\n';
    } else {
      io.err << "ackstall: unknown subcommand '" << argv[1] << "' (try --help)\n";
    }
    return kExitUsage;
  }
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    io.out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    io.out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // Subcommand help is thrown from the subcommand itself.
    if (e.get_exit_code() == 0) {
      for (const CLI::App* sub : app.get_subcommands())
        if (sub->get_help_ptr() && sub->get_help_ptr()->count() > 0) io.out << sub->help();
      return kExitOk;
    }
    io.err << "ackstall: " << e.what() << '\n';
    return kExitUsage;
  }
  if (!selected) {
    io.err << "ackstall: no subcommand selected\n";
    return kExitUsage;
  }
  try {
    return selected(io);
  } catch (const std::exception& e) {
    io.err << "ackstall: " << e.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace ackstall::tools
