#include "app.h"

#include <ostream>
#include <string>
#include <vector>

#include "ackstall/core/suggest.h"
#include "commands.h"

namespace ackstall::tools {
namespace {

// " (did you mean --flag?)" for an unknown option ARG of CMD (CLI11 2.1 suggests nothing).
std::string suggest_option(const CLI::App& cmd, const std::string& arg) {
  // A one-letter flag is one edit from every other one-letter flag: no suggestion ("-p" is not
  // a typo of "-h").
  if (!arg.starts_with('-') || arg.size() <= 2) return {};
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return core::did_you_mean(arg.substr(0, arg.find('=')), names);
}

// The deepest parsed subcommand left with arguments it did not take (`lab up --rttt`), or null.
const CLI::App* with_extras(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    if (const CLI::App* deeper = with_extras(*sub)) return deeper;
    if (!sub->remaining().empty()) return sub;
  }
  return nullptr;
}

// The deepest subcommand on the command line (`lab up`), or null.
const CLI::App* deepest_parsed(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    const CLI::App* deeper = deepest_parsed(*sub);
    return deeper ? deeper : sub;
  }
  return nullptr;
}

// "lab up": a subcommand's name with its parents' below the program's.
std::string command_name(const CLI::App& sub) {
  const CLI::App* parent = sub.get_parent();
  return parent && parent->get_parent() ? command_name(*parent) + " " + sub.get_name() : sub.get_name();
}

}  // namespace

int run(std::span<const char* const> argv, Io io) {
  CLI::App app{"ackstall: reproduce, diagnose and fix TCP send stalls caused by send-buffer "
               "accounting meeting delayed ACKs",
               "ackstall"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("ackstall ") + ACKSTALL_VERSION);
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
      return fail(io, "'" + std::string(argv[1]) + "' is not in this build: " + std::string(why), kExitUsage);
    }
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    const std::string hint = core::did_you_mean(argv[1], names);
    return fail(io, "unknown subcommand '" + std::string(argv[1]) + "'" + (hint.empty() ? " (try --help)" : hint),
                kExitUsage);
  }
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForVersion& v) {
    io.out << v.what() << '\n';
    return kExitOk;
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
    // CLI11 checks required options before unexpected ones: name a mistyped flag first, and the
    // closest flag there is.
    if (const CLI::App* sub = with_extras(app)) {
      const auto extra = sub->remaining();
      const std::string name = command_name(*sub);
      const std::string hint = suggest_option(*sub, extra.front());
      return fail(io, name + ": unknown option or argument '" + extra.front() + "'" +
                          (hint.empty() ? " (try " + name + " --help)" : hint),
                  kExitUsage);
    }
    // Other errors ("target is required", a bad value) name the command they belong to; the
    // program's own stray arguments (`ackstall --bogus scan`) are the program's.
    if (const CLI::App* sub = deepest_parsed(app); sub != nullptr && app.remaining().empty()) {
      const std::string name = command_name(*sub);
      return fail(io, name + ": " + e.what() + " (try " + name + " --help)", kExitUsage);
    }
    return fail(io, e.what(), kExitUsage);
  }
  if (!selected) {
    // No subcommand: the usage on stdout, the error on stderr.
    io.out << app.help();
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
    return fail(io, "a subcommand is required: " + names + " (ackstall SUBCOMMAND --help)", kExitUsage);
  }
  try {
    return selected(io);
  } catch (const std::exception& e) {
    return fail(io, e.what());
  }
}

}  // namespace ackstall::tools
