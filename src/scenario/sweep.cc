#include "ackstall/scenario/sweep.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include "ackstall/core/units.h"
#include "ackstall/scenario/fields.h"
#include "ackstall/scenario/profiles.h"

namespace ackstall::scenario {
namespace {

constexpr std::size_t kMaxValuesPerAxis = 1'000'000;

// A number in KIND's grammar, in base units (bytes, ns, bit/s, or a plain integer).
core::Result<std::int64_t> number(FieldKind kind, std::string_view text) {
  switch (kind) {
    case FieldKind::integer: {
      std::int64_t v = 0;
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc{} || p != text.data() + text.size())
        return core::fail("bad integer '" + std::string(text) + "'");
      return v;
    }
    case FieldKind::size: {
      auto v = core::parse_size(text);
      if (!v) return tl::unexpected(v.error());
      if (*v > static_cast<std::uint64_t>(INT64_MAX)) return core::fail("size '" + std::string(text) + "' too large");
      return static_cast<std::int64_t>(*v);
    }
    case FieldKind::duration:
    case FieldKind::delay: return core::parse_duration_ns(text);  // a range of constant delays
    case FieldKind::rate: return core::parse_rate_bps(text);
    default: return core::fail("a range needs an integer, size, duration or rate key");
  }
}

std::string spell(FieldKind kind, std::int64_t v) {
  switch (kind) {
    case FieldKind::size: return v < 0 ? std::to_string(v) : core::format_size(static_cast<std::uint64_t>(v));
    case FieldKind::duration:
    case FieldKind::delay: return core::format_duration_ns(v);
    case FieldKind::rate: return core::format_rate_bps(v);
    default: return std::to_string(v);
  }
}

// A list value is checked by setting it on a default configuration.
std::optional<std::string> check_value(std::string_view key, const std::string& value) {
  if (key == "sender.profile" || key == "receiver.profile")
    return find_profile(value) ? std::nullopt : std::optional<std::string>("unknown profile \"" + value + "\"");
  if (key == "link.preset")
    return find_link_preset(value) ? std::nullopt
                                   : std::optional<std::string>("unknown link preset \"" + value + "\"");
  sim::ExperimentConfig cfg;
  Value v = value;
  if (value == "true" || value == "false") v = value == "true";
  else if (std::int64_t i = 0; std::from_chars(value.data(), value.data() + value.size(), i).ptr ==
                                   value.data() + value.size() && !value.empty())
    v = i;
  if (auto r = set_field(cfg, key, v); !r) return r.error().message().substr(key.size() + 2);
  return std::nullopt;
}

core::Result<std::vector<std::string>> expand_range(FieldKind kind, std::string_view range) {
  const auto dots = range.find("..");
  const auto colon = range.rfind(':');
  if (dots == std::string_view::npos || colon == std::string_view::npos || colon < dots)
    return core::fail("expected A..B:STEP or A..B:xF, got '" + std::string(range) + "'");
  const auto a = number(kind, range.substr(0, dots));
  if (!a) return tl::unexpected(a.error());
  const auto b = number(kind, range.substr(dots + 2, colon - dots - 2));
  if (!b) return tl::unexpected(b.error());
  if (*b < *a) return core::fail("range '" + std::string(range) + "' ends before it starts");
  const std::string_view step_text = range.substr(colon + 1);
  std::vector<std::string> out;
  if (step_text.starts_with('x')) {
    double f = 0;
    const auto num = step_text.substr(1);
    const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), f);
    if (ec != std::errc{} || p != num.data() + num.size() || !(f > 1) || !std::isfinite(f))
      return core::fail("geometric factor '" + std::string(step_text) + "' must be x and a number > 1");
    if (*a <= 0) return core::fail("a geometric range must start above 0");
    double v = static_cast<double>(*a);
    for (; v <= static_cast<double>(*b) * (1 + 1e-12); v *= f) {
      const auto i = static_cast<std::int64_t>(std::llround(v));
      if (out.empty() || out.back() != spell(kind, i)) out.push_back(spell(kind, i));
      if (out.size() > kMaxValuesPerAxis) break;
    }
    // The last value must be the end (docs/MAPS.md): a range that stops short is a typo.
    if (out.size() <= kMaxValuesPerAxis && out.back() != spell(kind, *b)) {
      return core::fail("range '" + std::string(range) + "' does not reach its end: it stops at " + out.back() +
                        ", the next value is " +
                        (v < 9.2e18 ? spell(kind, std::llround(v)) : std::string("beyond the largest value")) +
                        "; end it at either");
    }
  } else {
    const auto step = number(kind, step_text);
    if (!step) return tl::unexpected(step.error());
    if (*step <= 0) return core::fail("step '" + std::string(step_text) + "' must be > 0");
    for (std::int64_t v = *a; v <= *b && out.size() <= kMaxValuesPerAxis; v += *step) {
      out.push_back(spell(kind, v));
      if (v > INT64_MAX - *step) break;
    }
    // In unsigned arithmetic: B - A may not fit an int64 (A < 0).
    const std::uint64_t span = static_cast<std::uint64_t>(*b) - static_cast<std::uint64_t>(*a);
    const auto ustep = static_cast<std::uint64_t>(*step);
    const auto last = static_cast<std::int64_t>(static_cast<std::uint64_t>(*a) + span / ustep * ustep);
    if (out.size() <= kMaxValuesPerAxis && last != *b) {
      const std::string next = last > INT64_MAX - *step ? std::string("beyond the largest value") : spell(kind, last + *step);
      return core::fail("range '" + std::string(range) + "' does not reach its end: it stops at " + spell(kind, last) +
                        ", the next value is " + next + "; end it at either");
    }
  }
  if (out.size() > kMaxValuesPerAxis)
    return core::fail("range '" + std::string(range) + "' has more than 1000000 values");
  return out;
}

}  // namespace

core::Result<SweepAxis> parse_sweep_axis(std::string_view spec) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size())
    return core::fail(std::string(spec) + ": expected KEY=V1,V2,... or KEY=A..B:STEP");
  SweepAxis axis{std::string(spec.substr(0, eq)), {}, false};
  const std::string_view values = spec.substr(eq + 1);
  const std::string context = axis.key + ": ";
  const FieldInfo* field = find_field(axis.key);
  bool profile_key = false;
  for (const FieldInfo& p : profile_keys()) profile_key = profile_key || p.path == axis.key;
  if (field == nullptr && !profile_key) return core::fail(unknown_key(axis.key));
  // A list key's values hold commas themselves: one list per cell cannot be written here.
  if (field != nullptr && field->kind == FieldKind::durations)
    return core::fail(context + "a list key cannot be swept (set it with --set or in the file)");
  if (values.find("..") != std::string_view::npos) {
    if (field == nullptr) return core::fail(context + "a range needs an integer, size, duration or rate key");
    auto r = expand_range(field->kind, values);
    if (!r) return core::fail(context + r.error().message());
    axis.values = std::move(*r);
    axis.geometric = values.substr(values.rfind(':') + 1).starts_with('x');
  } else {
    for (const std::string_view v : core::split_list(values)) axis.values.emplace_back(v);
  }
  std::set<std::string> seen;
  for (const std::string& v : axis.values) {
    if (v.empty()) return core::fail(context + "empty value in '" + std::string(values) + "'");
    if (!seen.insert(v).second) return core::fail(context + "value '" + v + "' given twice");
    if (auto err = check_value(axis.key, v)) return core::fail(context + *err);
  }
  return axis;
}

core::Result<Shard> parse_shard(std::string_view spec) {
  const auto slash = spec.find('/');
  Shard s;
  const auto parse = [](std::string_view t, std::uint64_t& v) {
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc{} && p == t.data() + t.size() && !t.empty();
  };
  if (slash == std::string_view::npos || !parse(spec.substr(0, slash), s.index) ||
      !parse(spec.substr(slash + 1), s.count) || s.count == 0 || s.index == 0 || s.index > s.count)
    return core::fail(std::string(spec) + ": expected I/N with 1 <= I <= N, e.g. 2/4");
  return s;
}

core::Result<Sweep> Sweep::make(std::vector<SweepAxis> axes) {
  Sweep s;
  std::set<std::string> keys;
  for (const SweepAxis& a : axes) {
    if (!keys.insert(a.key).second) return core::fail(a.key + ": key swept twice");
    if (a.values.empty()) return core::fail(a.key + ": no values");
    if (s.cells_ > kMaxCells / a.values.size())
      return core::fail("more than 2^40 cells");
    s.cells_ *= a.values.size();
  }
  s.axes_ = std::move(axes);
  return s;
}

std::vector<std::size_t> Sweep::coordinates(std::uint64_t cell) const {
  std::vector<std::size_t> out(axes_.size());
  for (std::size_t i = axes_.size(); i-- > 0;) {
    out[i] = static_cast<std::size_t>(cell % axes_[i].values.size());
    cell /= axes_[i].values.size();
  }
  return out;
}

std::vector<std::string> Sweep::sets(std::uint64_t cell) const {
  const auto at = coordinates(cell);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < axes_.size(); ++i) out.push_back(axes_[i].key + "=" + axes_[i].values[at[i]]);
  return out;
}

std::uint64_t Sweep::shard_cells(Shard shard) const {
  return cells_ >= shard.index ? (cells_ - shard.index) / shard.count + 1 : 0;
}

}  // namespace ackstall::scenario
