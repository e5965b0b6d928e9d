// ackstall/scenario/fields.h — every settable scenario key, by dotted path.
//
// The one table that maps a scenario key (TOML `[receiver.ack] ack_on_push = true`, or the CLI's
// `--set receiver.ack.ack_on_push=true`) to a field of sim::ExperimentConfig, with its type.
// The loader and `--set` both go through `set_field`, so they accept exactly the same keys; the
// writer (writer.h) goes through `field_value` and `field_at`, so each key is declared once, for
// reading and writing alike.
//
// Value syntax by kind (core/units.h is the one grammar of sizes, durations and rates):
//   integer   a TOML integer ("--set x=300"): a count
//   size      bytes: an integer, or a string with a binary multiple as core/units.h: 8192, "8k", "8KiB"
//   boolean   true / false
//   duration  a string with a unit: "200ms", "50us", "1500ns", "3s", "42.7ms"
//   rate      a string "100mbit", "1gbit", "64kbit" or an integer in bit/s
//   enum      one of the names listed for the key (e.g. "classic", "openbsd", "seed")
//   durations a string of comma-separated durations, or "none": "220us,260us,2ms"
//   delay     a random delay in sim's one grammar (sim/delay.h): "15us + exp(30us)", "none"
//
// Besides these keys, a scenario may name a profile or preset first (profiles.h):
// sender.profile, receiver.profile (TCP profiles) and link.preset; listed by profile_keys().
#pragma once

#include "ackstall/core/error.h"

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <variant>

#include "ackstall/sim/config.h"

namespace ackstall::scenario {

// A scalar as written in a scenario: TOML integer, boolean, float or string.
using Value = std::variant<std::int64_t, bool, double, std::string>;

enum class FieldKind { integer, size, boolean, duration, rate, enumeration, durations, delay };

struct FieldInfo {
  std::string path;           // "receiver.ack.delack_timeout"
  FieldKind kind = FieldKind::integer;
  std::string type;           // "integer", "size", "duration", "one of: off, classic, minshall", ...
  std::string description;    // what it is, with its unit where the grammar does not carry one
  std::string default_value;  // the value in a default ExperimentConfig, in the key's grammar
  // Non-empty for an old name kept for one release: the key it sets one term of. Old names are
  // not listed by fields(); find_field and set_field know them, and the loader warns
  // (Scenario::warnings).
  std::string replaced_by{};
};

// All keys of ExperimentConfig that a scenario may set (profile/preset keys excluded).
std::span<const FieldInfo> fields();
// The key PATH, or nullptr.
const FieldInfo* find_field(std::string_view path);
// The profile and preset keys (sender.profile, receiver.profile, link.preset): kind enumeration,
// type "one of: <names>", no default (the defaults of config.h apply).
std::span<const FieldInfo> profile_keys();

// The grammar of a kind, one line ("bytes, or a number and k, M or G ...").
std::string_view grammar(FieldKind kind);

// The value of field PATH in CFG, in the key's grammar ("8k", "200ms", "100mbit", "classic").
core::Result<std::string> get_field(const sim::ExperimentConfig& cfg, std::string_view path);

// The value of field PATH in CFG as a scenario file holds it: an integer or a size as an integer
// (a size "unset" as that string), a boolean as a boolean, any other kind as get_field's text.
// set_field(c, PATH, field_value(cfg, PATH)) gives c the value cfg has.
core::Result<Value> field_value(const sim::ExperimentConfig& cfg, std::string_view path);

// The key whose value is the member at MEMBER, of type TYPE, inside CFG (send_buffer.size's member
// is the size, whose "unset" it also sets), or nullptr: a program names a key by the member it
// sets, not by its text. Old names (FieldInfo::replaced_by) are never returned.
const FieldInfo* field_at(const sim::ExperimentConfig& cfg, const void* member, std::type_index type);
// field_at for MEMBER, a member of CFG: field_of(cfg, cfg.sender.mss) is the key "sender.mss".
template <class T>
const FieldInfo* field_of(const sim::ExperimentConfig& cfg, const T& member) {
  return field_at(cfg, &member, typeid(T));
}

// One line for the old names OLD of NEW_KEY (FieldInfo::replaced_by), VALUE being what they set:
// "a, b: old names; write NEW_KEY = \"VALUE\" (they go in the next release)".
std::string old_key_warning(const std::string& new_key, const std::set<std::string>& old, const std::string& value);

// "<path>: unknown key", with " (did you mean <key>?)" when a key (profile keys included) is close.
std::string unknown_key(std::string_view path);

// Sets one field. Fails with "<path>: <problem>" (unknown key, wrong type, bad name).
// Range checks are sim::validate()'s job, after every key is set.
core::Result<void> set_field(sim::ExperimentConfig& cfg, std::string_view path, const Value& value);

// Durations and rates are written in core's grammar (core/units.h).

}  // namespace ackstall::scenario
