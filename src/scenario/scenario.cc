#include "ackstall/scenario/scenario.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
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
  // Where the value was written: "file", "--set", or "include PATH" (scenario.include).
  std::string source = "file";
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
                                   const std::string& source, std::vector<Assignment>& out) {
  for (const auto& [k, node] : table) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table()) {
      if (auto err = flatten(*sub, key, source, out)) return err;
    } else if (const auto* i = node.as_integer()) {
      out.push_back({key, i->get(), source});
    } else if (const auto* b = node.as_boolean()) {
      out.push_back({key, b->get(), source});
    } else if (const auto* d = node.as_floating_point()) {
      out.push_back({key, d->get(), source});
    } else if (const auto* s = node.as_string()) {
      out.push_back({key, s->get(), source});
    } else {
      return key + where(node.source()) + ": arrays, dates and times are not scenario values";
    }
  }
  return std::nullopt;
}

// [sweep] axes = ["KEY=VALUES", ...]: the sweep a map file runs (sweep.h); taken out of DOC.
std::optional<std::string> take_sweep(toml::table& doc, std::vector<std::string>& axes) {
  const toml::node* node = doc.get("sweep");
  if (node == nullptr) return std::nullopt;
  const toml::table* sweep = node->as_table();
  if (sweep == nullptr) return "sweep" + where(node->source()) + ": expected a table [sweep] with axes = [...]";
  for (const auto& [k, v] : *sweep) {
    if (k.str() != "axes") return "sweep." + std::string(k.str()) + where(v.source()) + ": unknown key (sweep.axes only)";
    const toml::array* list = v.as_array();
    if (list == nullptr) return "sweep.axes" + where(v.source()) + ": expected an array of \"KEY=VALUES\" strings";
    for (const toml::node& item : *list) {
      const auto* str = item.as_string();
      if (str == nullptr) return "sweep.axes" + where(item.source()) + ": expected \"KEY=VALUES\" strings";
      axes.push_back(str->get());
    }
  }
  doc.erase("sweep");
  return std::nullopt;
}

// [scenario] include = "PATH" or ["PATH", ...]: files of keys read before the file's own (which
// override them), in order; taken out of DOC.
std::optional<std::string> take_includes(toml::table& doc, std::vector<std::string>& paths) {
  toml::table* meta = doc["scenario"].as_table();
  if (meta == nullptr) return std::nullopt;
  const toml::node* node = meta->get("include");
  if (node == nullptr) return std::nullopt;
  if (const auto* one = node->as_string()) {
    paths.push_back(one->get());
  } else if (const auto* list = node->as_array()) {
    for (const toml::node& item : *list) {
      const auto* str = item.as_string();
      if (str == nullptr) return "scenario.include" + where(item.source()) + ": expected a path or an array of paths";
      paths.push_back(str->get());
    }
  } else {
    return "scenario.include" + where(node->source()) + ": expected a path or an array of paths";
  }
  for (const std::string& p : paths)
    if (p.empty()) return "scenario.include" + where(node->source()) + ": an empty path";
  meta->erase("include");
  if (meta->empty()) doc.erase("scenario");
  return std::nullopt;
}

// The keys of one included file, labelled "include PATH". An included file holds keys only.
std::optional<std::string> read_include(const std::string& path, const IncludeReader& reader,
                                        std::vector<Assignment>& out) {
  const std::string label = "include " + path;
  if (!reader) return label + ": only a scenario read from a file can include another";
  auto text = reader(path);
  if (!text) return label + ": " + text.error().message();
  try {
    const toml::table doc = toml::parse(*text, std::string_view(path));
    for (const char* table : {"scenario", "sweep"})
      if (doc.contains(table))
        return label + ": an included file holds keys only; [" + table + "] belongs in the including file";
    if (auto err = flatten(doc, "", label, out)) return label + ": " + *err;
  } catch (const toml::parse_error& e) {
    return label + ": TOML syntax error" + where(e.source()) + ": " + std::string(e.description());
  }
  return std::nullopt;
}

// "include PATH: " for a key an included file set, so that its error names that file.
std::string prefix_of(const Assignment& a) {
  return a.source.starts_with("include ") ? a.source + ": " : std::string();
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

// Applies a profile or preset; records it as the origin of every key it covers (prefix "sender.",
// "receiver." or "link.") that differs from the default.
std::optional<std::string> apply_profile_key(Scenario& s, const Assignment& a, const char* source) {
  std::string name;
  if (auto err = as_string(a, name)) return err;
  std::string prefix, origin;
  if (a.key == "link.preset") {
    const NamedLink* l = find_link_preset(name);
    if (l == nullptr) {
      std::string known;
      for (const auto& n : link_presets()) known += (known.empty() ? "" : ", ") + std::string(n.name);
      return a.key + ": unknown link preset \"" + name + "\" (one of: " + known + ")";
    }
    s.config.link = l->make();
    prefix = "link.", origin = "preset " + name;
  } else {
    const NamedProfile* p = find_profile(name);
    if (p == nullptr) {
      std::string known;
      for (const auto& n : tcp_profiles()) known += (known.empty() ? "" : ", ") + std::string(n.name);
      return a.key + ": unknown profile \"" + name + "\" (one of: " + known + ")";
    }
    const bool sender = a.key == "sender.profile";
    (sender ? s.config.sender : s.config.receiver) = p->make();
    prefix = sender ? "sender." : "receiver.", origin = "profile " + name;
  }
  s.origin[a.key] = source;
  s.profiles[a.key] = name;
  const sim::ExperimentConfig defaults{};
  for (const FieldInfo& f : fields()) {
    if (!f.path.starts_with(prefix)) continue;
    if (get_field(s.config, f.path) != get_field(defaults, f.path)) s.origin[f.path] = origin;
    else s.origin.erase(f.path);
  }
  return std::nullopt;
}

std::optional<std::string> apply_metadata(Scenario& s, const Assignment& a) {
  const std::string field = a.key.substr(std::string_view("scenario.").size());
  if (field == "include") return a.key + ": only a scenario file includes others (not an override)";
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
                                      std::span<const std::string> sets, const IncludeReader& include) {
  const std::string src(source_name);
  auto fail = [&src](const std::string& msg) { return core::fail(one_line(src + ": " + msg)); };

  std::vector<Assignment> file;
  std::vector<std::string> sweep_axes;
  try {
    toml::table doc = toml::parse(toml_text, std::string_view(src));
    if (auto err = take_sweep(doc, sweep_axes)) return fail(*err);
    std::vector<std::string> includes;
    if (auto err = take_includes(doc, includes)) return fail(*err);
    for (const std::string& path : includes)
      if (auto err = read_include(path, include, file)) return fail(*err);
    if (auto err = flatten(doc, "", "file", file)) return fail(*err);
  } catch (const toml::parse_error& e) {
    return fail("TOML syntax error" + where(e.source()) + ": " + std::string(e.description()));
  }
  std::vector<Assignment> cli;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return core::fail(one_line("override " + s + ": expected key=value"));
    cli.push_back({s.substr(0, eq), parse_cli_value(std::string_view(s).substr(eq + 1)), "--set"});
  }

  Scenario out;
  out.sweep_axes = std::move(sweep_axes);
  // new key -> the old names used for it, and "include PATH: " where an included file used them
  struct OldNames {
    std::set<std::string> names;
    std::string in;
  };
  std::map<std::string, OldNames> old_names;
  // 1. presets and profiles, file then overrides; 2. other keys, file then overrides.
  // An override's error names it "override KEY: ..." and no flag: the flag is the caller's
  // (ackstall sim's --set, tools/ackstall/cmd_sim.cc).
  for (const auto* list : {&file, &cli})
    for (const Assignment& a : *list)
      if (is_profile_key(a.key)) {
        if (auto err = apply_profile_key(out, a, a.source.c_str())) return fail(list == &cli ? "override " + *err : prefix_of(a) + *err);
        if (list == &cli) out.overrides.push_back(a.key);
      }
  for (const auto* list : {&file, &cli}) {
    for (const Assignment& a : *list) {
      if (is_profile_key(a.key)) continue;
      std::optional<std::string> err;
      if (a.key.starts_with("scenario.")) {
        err = apply_metadata(out, a);
      } else if (auto set = set_field(out.config, a.key, a.value); !set) {
        err = set.error().message();
      } else {
        if (const FieldInfo* f = find_field(a.key); f != nullptr && !f->replaced_by.empty()) {
          OldNames& used = old_names[f->replaced_by];
          used.names.insert(a.key);
          used.in = prefix_of(a);
        }
        out.origin[a.key] = a.source;
        if (list == &cli) out.overrides.push_back(a.key);
      }
      if (err) return fail(list == &cli ? "override " + *err : prefix_of(a) + *err);
    }
  }
  if (auto ok = sim::validate(out.config); !ok) {
    // "KEY: problem": named by the included file when that file set KEY
    const std::string& msg = ok.error().message();
    const auto it = out.origin.find(std::string_view(msg).substr(0, msg.find(':')));
    const bool included = it != out.origin.end() && it->second.starts_with("include ");
    return fail(included ? it->second + ": " + msg : msg);
  }
  for (const auto& [key, old] : old_names)
    out.warnings.push_back(src + ": " + old.in + old_key_warning(key, old.names, get_field(out.config, key).value_or("?")));
  return out;
}

std::vector<ResolvedKey> resolve_keys(const Scenario& s) {
  std::vector<ResolvedKey> out;
  for (const FieldInfo& f : profile_keys()) {
    if (const auto it = s.profiles.find(f.path); it != s.profiles.end())
      out.push_back({f.path, it->second, s.origin.at(f.path)});
  }
  for (const FieldInfo& f : fields()) {
    const auto it = s.origin.find(f.path);
    out.push_back({f.path, get_field(s.config, f.path).value_or("?"),
                   it == s.origin.end() ? "default" : it->second});
  }
  return out;
}

namespace {

// A file's text, or why not: "cannot open", "a directory" (which std::ifstream opens on Linux and
// reads as empty), "read error".
core::Result<std::string> read_text(const std::filesystem::path& p, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec)) return core::fail(p.string() + ": a directory, not " + std::string(what));
  std::ifstream in(p, std::ios::binary);
  if (!in) return core::fail(p.string() + ": cannot open " + std::string(what));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return core::fail(p.string() + ": read error");
  return text.str();
}

}  // namespace

core::Result<std::string> read_scenario_text(const std::string& path) {
  auto text = read_text(path, "scenario file");
  if (!text) return core::fail(one_line(text.error().message()));
  return text;
}

core::Result<Scenario> load_scenario_file(const std::string& path,
                                          std::span<const std::string> sets) {
  auto text = read_scenario_text(path);
  if (!text) return tl::unexpected(std::move(text.error()));
  return parse_scenario(*text, path, sets, includes_beside(path));
}

IncludeReader includes_beside(const std::string& scenario_path) {
  const std::filesystem::path dir = std::filesystem::path(scenario_path).parent_path();
  return [dir](const std::string& path) -> core::Result<std::string> {
    const std::filesystem::path p = std::filesystem::path(path).is_absolute() ? std::filesystem::path(path) : dir / path;
    return read_text(p, "an included file");
  };
}

}  // namespace ackstall::scenario
