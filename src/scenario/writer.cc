#include "ackstall/scenario/writer.h"

#include <sstream>
#include <toml++/toml.h>

#include "ackstall/scenario/profiles.h"

namespace ackstall::scenario {
namespace {

// The [scenario] table's keys (scenario.h: name, description, seed_row, calibration, seed_mib_s).
bool metadata_ok(std::string_view field, const Value& v) {
  if (field == "seed_mib_s") return std::holds_alternative<double>(v) || std::holds_alternative<std::int64_t>(v);
  return (field == "name" || field == "description" || field == "seed_row" || field == "calibration") &&
         std::holds_alternative<std::string>(v);
}

}  // namespace

core::Result<void> ScenarioWriter::set(std::string_view key, Value value) {
  const std::string k(key);
  if (key.starts_with("scenario.")) {
    if (!metadata_ok(key.substr(std::string_view("scenario.").size()), value)) {
      return core::fail(k + ": not a [scenario] key of that type (name, description, seed_row, calibration, "
                            "seed_mib_s)");
    }
  } else if (key == "sender.profile" || key == "receiver.profile" || key == "link.preset") {
    const auto* name = std::get_if<std::string>(&value);
    const bool known = name != nullptr && (key == "link.preset" ? find_link_preset(*name) != nullptr
                                                                : find_profile(*name) != nullptr);
    if (!known) return core::fail(k + ": unknown profile or preset");
  } else if (auto ok = set_field(scratch_, key, value); !ok) {
    return ok;
  }
  for (auto& [have, v] : keys_) {
    if (have == k) {
      v = std::move(value);
      return {};
    }
  }
  keys_.emplace_back(k, std::move(value));
  return {};
}

std::string ScenarioWriter::toml() const {
  toml::table doc;
  for (const auto& [key, value] : keys_) {
    // "a.b.c" -> table a, table b, key c.
    toml::table* t = &doc;
    std::string_view rest = key;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      const std::string part(rest.substr(0, dot));
      if (!t->contains(part)) t->insert(part, toml::table{});
      t = t->get(part)->as_table();
      rest.remove_prefix(dot + 1);
    }
    std::visit([&](const auto& v) { t->insert_or_assign(std::string(rest), v); }, value);
  }
  std::ostringstream out;
  for (const std::string& c : comments_) out << "# " << c << '\n';
  out << doc << '\n';
  return out.str();
}

}  // namespace ackstall::scenario
