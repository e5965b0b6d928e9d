#include "ackstall/scenario/scenario.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>
#include <utility>
#include <vector>

#include "ackstall/scenario/fields.h"
#include "ackstall/scenario/profiles.h"

namespace ackstall::scenario {
namespace {

struct Assignment {
  std::string key;
  Value value;
};

// Errors are one line: control characters quoted from the input (toml++ echoes what it saw) are
// shown escaped.
std::string one_line(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += '?';
    else out += c;
  }
  return out;
}

std::string where(const toml::source_region& src) {
  return src.begin.line > 0 ? " (line " + std::to_string(src.begin.line) + ")" : std::string();
}

// Flattens the TOML tree into dotted-key assignments in document order.
std::optional<std::string> flatten(const toml::table& table, const std::string& prefix,
                                   std::vector<Assignment>& out) {
  for (const auto& [k, node] : table) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table()) {
      if (auto err = flatten(*sub, key, out)) return err;
    } else if (const auto* i = node.as_integer()) {
      out.push_back({key, i->get()});
    } else if (const auto* b = node.as_boolean()) {
      out.push_back({key, b->get()});
    } else if (const auto* d = node.as_floating_point()) {
      out.push_back({key, d->get()});
    } else if (const auto* s = node.as_string()) {
      out.push_back({key, s->get()});
    } else {
      return key + where(node.source()) + ": arrays, dates and times are not scenario values";
    }
  }
  return std::nullopt;
}

Value parse_cli_value(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
      ec == std::errc{} && p == text.data() + text.size())
    return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      ec == std::errc{} && p == text.data() + text.size())
    return d;
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
    text = text.substr(1, text.size() - 2);
  return std::string(text);
}

std::optional<std::string> as_string(const Assignment& a, std::string& out) {
  const auto* s = std::get_if<std::string>(&a.value);
  if (s == nullptr) return a.key + ": expected a string";
  out = *s;
  return std::nullopt;
}

std::optional<std::string> apply_profile_key(sim::ExperimentConfig& cfg, const Assignment& a) {
  std::string name;
  if (auto err = as_string(a, name)) return err;
  if (a.key == "link.preset") {
    const NamedLink* l = find_link_preset(name);
    if (l == nullptr) return a.key + ": unknown link preset \"" + name + "\" (see --list-profiles)";
    cfg.link = l->make();
    return std::nullopt;
  }
  const NamedProfile* p = find_profile(name);
  if (p == nullptr) return a.key + ": unknown profile \"" + name + "\" (see --list-profiles)";
  (a.key == "sender.profile" ? cfg.sender : cfg.receiver) = p->make();
  return std::nullopt;
}

std::optional<std::string> apply_metadata(Scenario& s, const Assignment& a) {
  const std::string field = a.key.substr(std::string_view("scenario.").size());
  if (field == "seed_mib_s") {
    if (const auto* d = std::get_if<double>(&a.value)) s.seed_mib_s = *d;
    else if (const auto* i = std::get_if<std::int64_t>(&a.value)) s.seed_mib_s = static_cast<double>(*i);
    else return a.key + ": expected a number";
    return std::nullopt;
  }
  std::string* target = field == "name"          ? &s.name
                        : field == "description" ? &s.description
                        : field == "seed_row"    ? &s.seed_row
                        : field == "calibration" ? &s.calibration
                                                 : nullptr;
  if (target == nullptr) return a.key + ": unknown key";
  return as_string(a, *target);
}

bool is_profile_key(std::string_view k) {
  return k == "sender.profile" || k == "receiver.profile" || k == "link.preset";
}

}  // namespace

core::Result<Scenario> parse_scenario(std::string_view toml_text, std::string_view source_name,
                                                    std::span<const std::string> sets) {
  const std::string src(source_name);
  auto fail = [&src](const std::string& msg) { return core::fail(one_line(src + ": " + msg)); };

  std::vector<Assignment> file;
  try {
    const toml::table doc = toml::parse(toml_text, std::string_view(src));
    if (auto err = flatten(doc, "", file)) return fail(*err);
  } catch (const toml::parse_error& e) {
    return fail("TOML syntax error" + where(e.source()) + ": " + std::string(e.description()));
  }
  std::vector<Assignment> cli;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return core::fail(one_line("--set " + s + ": expected key=value"));
    cli.push_back({s.substr(0, eq), parse_cli_value(std::string_view(s).substr(eq + 1))});
  }

  Scenario out;
  // 1. presets and profiles, file then --set; 2. other keys, file then --set.
  for (const auto* list : {&file, &cli})
    for (const Assignment& a : *list)
      if (is_profile_key(a.key))
        if (auto err = apply_profile_key(out.config, a)) return fail(*err);
  for (const auto* list : {&file, &cli}) {
    for (const Assignment& a : *list) {
      if (is_profile_key(a.key)) continue;
      std::optional<std::string> err;
      if (a.key.starts_with("scenario.")) {
        err = apply_metadata(out, a);
      } else if (auto set = set_field(out.config, a.key, a.value); !set) {
        err = set.error().message();
      }
      if (err) return fail(list == &cli ? "--set " + *err : *err);
    }
  }
  if (auto ok = sim::validate(out.config); !ok) return fail(ok.error().message());
  return out;
}

core::Result<Scenario> load_scenario_file(const std::string& path,
                                          std::span<const std::string> sets) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::fail(one_line(path + ": cannot open scenario file"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return core::fail(one_line(path + ": read error"));
  return parse_scenario(text.str(), path, sets);
}

}  // namespace ackstall::scenario
