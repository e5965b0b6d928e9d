// `sim --list-keys` and `sim --show-config` (ackstall/report/scenario_keys.h).
#include "ackstall/report/scenario_keys.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "ackstall/scenario/fields.h"

namespace ackstall::report {
namespace {

using scenario::FieldInfo;
using scenario::FieldKind;

nlohmann::json key_json(const FieldInfo& f) {
  return {{"key", f.path}, {"type", f.type}, {"default", f.default_value}, {"description", f.description}};
}

}  // namespace

void list_keys(std::ostream& out, bool json) {
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const FieldInfo& f : scenario::profile_keys()) j.push_back(key_json(f));
    for (const FieldInfo& f : scenario::fields()) j.push_back(key_json(f));
    out << j.dump(2) << '\n';
    return;
  }
  fmt::print(out, "Profiles and presets, applied first (then any key below overrides one field):\n");
  for (const FieldInfo& f : scenario::profile_keys())
    fmt::print(out, "  {:<38} {}\n  {:<38} {}\n", f.path, f.description, "", f.type);
  fmt::print(out, "\nKeys ({} in all; the default is the seed's unpatched run, include/ackstall/sim/config.h):\n",
             scenario::fields().size());
  fmt::print(out, "  {:<38} {:<9} {:<12} {}\n", "KEY", "TYPE", "DEFAULT", "DESCRIPTION");
  for (const FieldInfo& f : scenario::fields()) {
    const bool enumeration = f.kind == FieldKind::enumeration;
    fmt::print(out, "  {:<38} {:<9} {:<12} {}{}\n", f.path, enumeration ? "enum" : f.type, f.default_value,
               f.description, enumeration ? " (" + f.type + ")" : "");
  }
  fmt::print(out, "\nValues (TOML, or --set KEY=VALUE, or --sweep KEY=V1,V2 / A..B:STEP / A..B:xF):\n");
  for (FieldKind k : {FieldKind::integer, FieldKind::size, FieldKind::duration, FieldKind::rate,
                      FieldKind::boolean, FieldKind::durations, FieldKind::delay}) {
    const char* name = k == FieldKind::integer     ? "integer"
                       : k == FieldKind::size      ? "size"
                       : k == FieldKind::duration  ? "duration"
                       : k == FieldKind::rate      ? "rate"
                       : k == FieldKind::durations ? "durations"
                       : k == FieldKind::delay     ? "delay"
                                                   : "boolean";
    fmt::print(out, "  {:<9} {}\n", name, scenario::grammar(k));
  }
  fmt::print(out, "  {:<9} a size, duration or rate is a TOML string (\"8k\", \"200ms\"); a byte count or rate may also be an integer\n", "");
}

void show_config(std::ostream& out, const scenario::Scenario& sc, bool json) {
  const auto keys = scenario::resolve_keys(sc);
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& k : keys) j.push_back({{"key", k.path}, {"value", k.value}, {"origin", k.origin}});
    out << j.dump(2) << '\n';
    return;
  }
  fmt::print(out, "{:<40} {:<16} {}\n", "KEY", "VALUE", "FROM");
  for (const auto& k : keys) fmt::print(out, "{:<40} {:<16} {}\n", k.path, k.value, k.origin);
}

}  // namespace ackstall::report
