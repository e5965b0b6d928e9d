// ackstall/scenario/fields.h — every settable scenario key, by dotted path.
//
// The one table that maps a scenario key (TOML `[receiver.ack] ack_on_push = true`, or the CLI's
// `--set receiver.ack.ack_on_push=true`) to a field of sim::ExperimentConfig, with its type.
// The loader and `--set` both go through `set_field`, so they accept exactly the same keys.
//
// Value syntax by type:
//   integer   a TOML integer ("--set x=8192")
//   boolean   true / false
//   duration  a string with a unit: "200ms", "50us", "1500ns", "3s", "42.7ms"
//   rate      a string "100mbit", "1gbit", "64kbit" or an integer in bit/s
//   enum      one of the names listed for the key (e.g. "classic", "openbsd", "seed")
#pragma once

#include "ackstall/core/error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "ackstall/sim/config.h"

namespace ackstall::scenario {

// A scalar as written in a scenario: TOML integer, boolean, float or string.
using Value = std::variant<std::int64_t, bool, double, std::string>;

struct FieldInfo {
  std::string path;         // "receiver.ack.delack_timeout"
  std::string type;         // "integer", "duration", "one of: off, classic, minshall", ...
  std::string description;
};

// All keys of ExperimentConfig that a scenario may set (profile/preset keys excluded).
std::span<const FieldInfo> fields();

// Sets one field. Fails with "<path>: <problem>" (unknown key, wrong type, bad name).
// Range checks are sim::validate()'s job, after every key is set.
core::Result<void> set_field(sim::ExperimentConfig& cfg, std::string_view path, const Value& value);

// Durations and rates are written in core's grammar (core/units.h).

}  // namespace ackstall::scenario
