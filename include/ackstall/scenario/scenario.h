// ackstall/scenario/scenario.h — TOML scenario files for the simulator.
//
// A scenario is a TOML document:
//
//     [scenario]                       # metadata, all optional
//     name = "unpatched stream write"
//     seed_row = "unpatched stream write (netcat/ttcp)"   # the seed's table row it reproduces
//     seed_mib_s = 0.04                                   # the seed's figure for that row
//
//     [link]
//     preset = "ethernet-100baset"     # see profiles.h; then any link.* key overrides
//     [sender]
//     profile = "winxp"                # see profiles.h; then any sender.* key overrides
//     [receiver]
//     profile = "openbsd-3.9"
//     ack.ack_on_push = true
//     [app.transmitter]
//     chunking = "seed"
//     include = "measured/reader.toml" # optional: files of keys (a path or an array of paths,
//                                      # relative to this file) read before this file's own keys
//     [sweep]                          # optional: the sweep `sim` runs on this file (a map)
//     axes = ["sender.send_buffer.size=1k..256k:x2", "app.transmitter.chunking=none,seed"]
//
// Keys are listed in fields.h. Order of application: presets/profiles first (included files,
// the file, then --set), then the other keys in the same order, so the file overrides what it
// includes and --set overrides both. An included file holds keys only (no [scenario], no
// [sweep]); its keys' origin is "include PATH" and its errors name it. Every key must be known, of the right
// type, and the result must pass sim::validate(); the first problem is returned as one line,
// "<source>: <key>: <problem>", as a core::Error (core/error.h: tl::expected, so that clang 14, the
// libFuzzer compiler, can build the loader for fuzz/scenario_fuzz.cc).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <vector>
#include <span>
#include <string>
#include <string_view>

#include "ackstall/core/error.h"
#include "ackstall/sim/config.h"

namespace ackstall::scenario {

struct Scenario {
  std::string name;
  std::string description;
  std::string seed_row;                // the seed's table row this scenario reproduces
  std::optional<double> seed_mib_s;    // the seed's figure for that row
  std::string calibration;             // "calibrated: ..." / "prediction" (VALIDATION.md)
  sim::ExperimentConfig config;
  // Where each key's value came from, for keys not at their default: "file", "--set",
  // "profile winxp", "preset ethernet-100baset" (a profile's keys unless the file or --set
  // changed them afterwards).
  std::map<std::string, std::string, std::less<>> origin;
  std::map<std::string, std::string, std::less<>> profiles;  // "sender.profile" -> "winxp"
  std::vector<std::string> overrides;  // the keys --set changed (the seed's row no longer holds)
  // [sweep] axes = ["KEY=VALUES", ...]: the sweep this file describes (a map, sweep.h), in order.
  std::vector<std::string> sweep_axes;
  // One line per old key name used (FieldInfo::replaced_by): "KEY: old name, sets one term of
  // NEW (...)". The caller shows them as warnings.
  std::vector<std::string> warnings;
};

// Every key (fields.h) with its resolved value and origin ("default" when nothing set it).
struct ResolvedKey {
  std::string path, value, origin;
};
std::vector<ResolvedKey> resolve_keys(const Scenario& s);

// Reads a file a scenario includes (scenario.include), by the path as written: its text, or why not.
using IncludeReader = std::function<core::Result<std::string>(const std::string& path)>;
// Reads includes relative to the directory of the scenario file SCENARIO_PATH (absolute paths as
// they are).
IncludeReader includes_beside(const std::string& scenario_path);

// `sets` are "key=value" overrides (the CLI's --set); value is TOML-ish: true/false, an
// integer, a float, or a string (quotes optional). An override's error reads
// "[SOURCE: ]override KEY: ..." and names no command-line flag; the caller names its own.
// Without INCLUDE a scenario.include is an error (text that is not a file has no directory).
core::Result<Scenario> parse_scenario(std::string_view toml_text, std::string_view source_name,
                                      std::span<const std::string> sets = {},
                                      const IncludeReader& include = {});
// A scenario file's text (what load_scenario_file parses), or a one-line error naming PATH: it
// cannot be opened, is a directory, or could not be read.
core::Result<std::string> read_scenario_text(const std::string& path);
core::Result<Scenario> load_scenario_file(const std::string& path,
                                          std::span<const std::string> sets = {});

}  // namespace ackstall::scenario
