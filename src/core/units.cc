#include "ackstall/core/units.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <span>
#include <utility>

namespace ackstall::core {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;
};

// Splits TEXT into a finite decimal number and one of UNITS (longest suffix first in UNITS).
// Returns the number times the unit's scale, or nullopt.
std::optional<double> scaled(std::string_view text, std::span<const Unit> units) {
  for (const Unit& u : units) {
    if (text.size() <= u.suffix.size() || !text.ends_with(u.suffix)) continue;
    const std::string_view num = text.substr(0, text.size() - u.suffix.size());
    double v = 0;
    const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec != std::errc{} || ptr != num.data() + num.size() || !std::isfinite(v)) return std::nullopt;
    return v * u.scale;
  }
  return std::nullopt;
}

struct Spelling {
  std::uint64_t scale;
  std::string_view suffix;
};

// VALUE in the largest unit of UNITS (descending) that divides it, else in BASE units.
std::string spell(std::uint64_t value, std::span<const Spelling> units, std::string_view base) {
  for (const Spelling& u : units)
    if (value != 0 && value % u.scale == 0) return std::to_string(value / u.scale) + std::string(u.suffix);
  return std::to_string(value) + std::string(base);
}

tl::unexpected<Error> bad(std::string_view what, std::string_view text, std::string_view grammar) {
  return fail("bad " + std::string(what) + " '" + std::string(text) + "': expected " + std::string(grammar));
}

}  // namespace

Result<std::int64_t> parse_duration_ns(std::string_view text) {
  // "ms" before "s", "ns"/"us" before "s": the longer suffix wins.
  static constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const auto v = scaled(text, kUnits);
  if (!v || *v < 0 || *v > 9.2e18) return bad("duration", text, kDurationGrammar);
  return static_cast<std::int64_t>(std::round(*v));
}

Result<std::int64_t> parse_rate_bps(std::string_view text) {
  static constexpr Unit kUnits[] = {{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}};
  const auto v = scaled(text, kUnits);
  if (!v || *v <= 0 || *v > 9.2e18 || std::round(*v) < 1) return bad("rate", text, kRateGrammar);
  return static_cast<std::int64_t>(std::round(*v));
}

Result<std::uint64_t> parse_size(std::string_view text) {
  // Binary multiples, however written: k/K, KiB, KB (Windows' "8 KB" SO_SNDBUF is 8192); the
  // same for M and G. A lowercase "b" ("8kb") is refused: it reads as kilobits.
  static constexpr double kKi = 1024.0, kMi = 1048576.0, kGi = 1073741824.0;
  static constexpr Unit kUnits[] = {
      {"KiB", kKi}, {"kiB", kKi}, {"MiB", kMi}, {"miB", kMi}, {"GiB", kGi}, {"giB", kGi},
      {"KB", kKi},  {"kB", kKi},  {"MB", kMi},  {"mB", kMi},  {"GB", kGi},  {"gB", kGi},
      {"k", kKi},   {"K", kKi},   {"m", kMi},   {"M", kMi},   {"g", kGi},   {"G", kGi}};
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc{} && ptr == text.data() + text.size()) return v;
    return bad("size", text, kSizeGrammar);
  }
  // "8kb", "8kib": the unit spelled with a lowercase b reads as bits (IEC 80000-13: Kib is a
  // kibibit); said so, with the byte spellings, where they are sizes (not for "-1kb" or "0.1kb").
  if (text.size() >= 3 && text.back() == 'b') {
    std::string bytes(text);
    bytes.back() = 'B';
    const std::string_view stem = text.substr(0, text.size() - (text.ends_with("ib") ? 2 : 1));  // "8k"
    if (parse_size(bytes) && parse_size(stem)) {
      return fail("bad size '" + std::string(text) + "': a lowercase b reads as bits; for bytes write " + bytes +
                  " (or " + std::string(stem) + ")");
    }
  }
  const auto v = scaled(text, kUnits);
  // 2^63 is exact in a double; a fraction must come out to whole bytes.
  if (!v || *v < 0 || *v >= 9223372036854775808.0 || *v != std::floor(*v) ||
      text.find_first_of("eE+-") != std::string_view::npos)
    return bad("size", text, kSizeGrammar);
  return static_cast<std::uint64_t>(*v);
}

std::string format_duration_ns(std::int64_t ns) {
  static constexpr Spelling kUnits[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}};
  return spell(static_cast<std::uint64_t>(ns), kUnits, "ns");
}

std::string format_rate_bps(std::int64_t bps) {
  static constexpr Spelling kUnits[] = {{1'000'000'000, "gbit"}, {1'000'000, "mbit"}, {1'000, "kbit"}};
  return spell(static_cast<std::uint64_t>(bps), kUnits, "bit");
}

std::string format_size(std::uint64_t bytes) {
  static constexpr Spelling kUnits[] = {{1ull << 30, "G"}, {1ull << 20, "M"}, {1ull << 10, "k"}};
  return spell(bytes, kUnits, "");
}

std::vector<std::string_view> split_list(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const auto at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

}  // namespace ackstall::core
