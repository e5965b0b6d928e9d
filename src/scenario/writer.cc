#include "ackstall/scenario/writer.h"

#include <sstream>
#include <toml++/toml.h>

#include "ackstall/scenario/profiles.h"

namespace ackstall::scenario {
namespace {

// "a.b.c" -> table a, table b, key c = VALUE.
void put(toml::table& doc, std::string_view key, const Value& value) {
  toml::table* t = &doc;
  for (auto dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.')) {
    const std::string part(key.substr(0, dot));
    if (!t->contains(part)) t->insert(part, toml::table{});
    t = t->get(part)->as_table();
    key.remove_prefix(dot + 1);
  }
  std::visit([&](const auto& v) { t->insert_or_assign(std::string(key), v); }, value);
}

}  // namespace

core::Result<ScenarioWriter> ScenarioWriter::over(ScenarioProfiles profiles) {
  ScenarioWriter w;
  // As the loader applies them (scenario.cc, apply_profile_key): each replaces its whole part.
  if (!profiles.link.empty()) {
    const NamedLink* l = find_link_preset(profiles.link);
    if (l == nullptr) return core::fail("link.preset: unknown link preset \"" + profiles.link + "\"");
    w.base_.link = l->make();
  }
  for (auto [name, side, key] : {std::tuple{&profiles.sender, &w.base_.sender, "sender.profile"},
                                 std::tuple{&profiles.receiver, &w.base_.receiver, "receiver.profile"}}) {
    if (name->empty()) continue;
    const NamedProfile* p = find_profile(*name);
    if (p == nullptr) return core::fail(std::string(key) + ": unknown profile \"" + *name + "\"");
    *side = p->make();
  }
  w.profiles_ = std::move(profiles);
  w.config_ = w.base_;
  return w;
}

void ScenarioWriter::carry_at(const void* member, std::type_index type) {
  const FieldInfo* f = field_at(config_, member, type);
  if (f == nullptr) ++unknown_members_;
  else carried_.insert(f->path);
}

core::Result<std::string> ScenarioWriter::toml() const {
  if (unknown_members_ > 0)
    return core::fail(std::to_string(unknown_members_) + " carried member(s) of the configuration no scenario key sets");
  if (auto ok = sim::validate(config_); !ok) return tl::unexpected(ok.error());
  toml::table doc;
  const std::pair<std::string_view, const std::string*> text[] = {
      {"scenario.name", &metadata_.name},         {"scenario.description", &metadata_.description},
      {"scenario.seed_row", &metadata_.seed_row}, {"scenario.calibration", &metadata_.calibration},
      {"sender.profile", &profiles_.sender},      {"receiver.profile", &profiles_.receiver},
      {"link.preset", &profiles_.link}};
  for (const auto& [key, value] : text)
    if (!value->empty()) put(doc, key, *value);
  if (metadata_.seed_mib_s) put(doc, "scenario.seed_mib_s", *metadata_.seed_mib_s);
  for (const FieldInfo& f : fields()) {
    if (!carried_.contains(f.path) && get_field(config_, f.path) == get_field(base_, f.path)) continue;
    auto value = field_value(config_, f.path);
    if (!value) return tl::unexpected(value.error());
    put(doc, f.path, *value);
  }
  std::ostringstream out;
  for (const std::string& c : comments_) out << "# " << c << '\n';
  out << doc << '\n';
  return out.str();
}

}  // namespace ackstall::scenario
