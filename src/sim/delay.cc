// A random delay (delay.h): its grammar, canonical text and draw.
#include "ackstall/sim/delay.h"

#include "ackstall/core/units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace ackstall::sim {
namespace {

// A sum of this many terms of at most 1000 s each stays far inside int64 nanoseconds, even with
// an exponential's tail (-ln 2^-53 = 36.7 means).
constexpr std::size_t kMaxTerms = 32;

bool adds_nothing(const DelayTerm& t) noexcept {
  switch (t.kind) {
    case DelayKind::constant:
    case DelayKind::uniform:
    case DelayKind::exponential: return t.value == Nanos::zero();
    case DelayKind::quantiles:
    case DelayKind::trace: return t.points.empty();
    case DelayKind::rare: return false;
  }
  return false;
}

Nanos sum(std::vector<DelayTerm>& terms, Rng& rng) noexcept {
  Nanos total = Nanos::zero();
  for (DelayTerm& t : terms) {
    switch (t.kind) {
      case DelayKind::constant: total += t.value; break;
      case DelayKind::uniform: total += rng.uniform(t.value); break;
      case DelayKind::exponential: total += exponential(rng, t.value); break;
      case DelayKind::quantiles: total += from_quantiles(rng, t.points); break;
      case DelayKind::trace:
        if (t.points.empty()) break;
        total += t.points[t.next];
        t.next = t.next + 1 == t.points.size() ? 0 : t.next + 1;
        break;
      case DelayKind::rare:
        if (t.ppm > 0 && rng.below(1'000'000) < static_cast<std::uint64_t>(t.ppm)) total += sum(t.terms, rng);
        break;
    }
  }
  return total;
}

std::string list(const std::vector<Nanos>& points) {
  std::string out;
  for (const Nanos p : points) out += (out.empty() ? "" : ", ") + core::format_duration_ns(p.count());
  return out;
}

std::string text(const std::vector<DelayTerm>& terms) {
  std::string out;
  for (const DelayTerm& t : terms) {
    if (!out.empty()) out += " + ";
    switch (t.kind) {
      case DelayKind::constant: out += core::format_duration_ns(t.value.count()); break;
      case DelayKind::uniform: out += "uniform(" + core::format_duration_ns(t.value.count()) + ")"; break;
      case DelayKind::exponential: out += "exp(" + core::format_duration_ns(t.value.count()) + ")"; break;
      case DelayKind::quantiles: out += "quantiles(" + list(t.points) + ")"; break;
      case DelayKind::trace: out += "trace(" + list(t.points) + ")"; break;
      case DelayKind::rare:
        out += std::to_string(t.ppm) + "ppm * (" + (t.terms.empty() ? std::string("none") : text(t.terms)) + ")";
        break;
    }
  }
  return out;
}

// A recursive-descent reader of the grammar in delay.h over TEXT.
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  core::Result<Delay> delay() {
    auto terms = sum_of_terms(/*inside_rare=*/false);
    if (!terms) return tl::unexpected(terms.error());
    skip();
    if (at_ < s_.size()) return fail("expected \"+\" or the end");
    return Delay(std::move(*terms));
  }

 private:
  core::Result<std::vector<DelayTerm>> sum_of_terms(bool inside_rare) {
    std::vector<DelayTerm> out;
    skip();
    if (word() == "none") {
      at_ += 4;
      return out;
    }
    for (;;) {
      auto t = term(inside_rare);
      if (!t) return tl::unexpected(t.error());
      if (!adds_nothing(*t)) out.push_back(std::move(*t));
      skip();
      if (at_ < s_.size() && s_[at_] == '+') {
        ++at_;
        continue;
      }
      return out;
    }
  }

  core::Result<DelayTerm> term(bool inside_rare) {
    skip();
    const std::string_view w = word();
    if (w == "exp" || w == "uniform" || w == "quantiles" || w == "trace") {
      at_ += w.size();
      if (!eat('(')) return fail("expected \"(\" after " + std::string(w));
      std::vector<Nanos> points;
      for (;;) {
        auto d = duration();
        if (!d) return tl::unexpected(d.error());
        points.push_back(*d);
        if (eat(',')) continue;
        if (eat(')')) break;
        return fail("expected \",\" or \")\"");
      }
      DelayTerm t;
      if (w == "exp" || w == "uniform") {
        if (points.size() != 1) return fail(std::string(w) + "() takes one duration");
        t.kind = w == "exp" ? DelayKind::exponential : DelayKind::uniform;
        t.value = points.front();
        return t;
      }
      t.kind = w == "trace" ? DelayKind::trace : DelayKind::quantiles;
      t.points = std::move(points);
      return t;
    }
    // A number: a constant duration, or "N ppm * ...".
    const std::string_view tok = token();
    if (tok.empty()) return fail("expected a duration, uniform(), exp(), quantiles(), trace() or N ppm * (...)");
    if (tok.size() > 3 && tok.ends_with("ppm")) {
      if (inside_rare) return fail("a rare event cannot hold another");
      DelayTerm t{.kind = DelayKind::rare};
      const std::string_view n = tok.substr(0, tok.size() - 3);
      const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), t.ppm);
      if (ec != std::errc{} || p != n.data() + n.size() || t.ppm > 1'000'000)
        return fail("ppm must be an integer 0..1000000, got \"" + std::string(n) + "\"");
      if (!eat('*')) return fail("expected \"*\" after " + std::string(tok));
      skip();
      if (eat('(')) {
        auto inner = sum_of_terms(true);
        if (!inner) return tl::unexpected(inner.error());
        if (!eat(')')) return fail("expected \")\"");
        t.terms = std::move(*inner);
      } else {
        auto inner = term(true);
        if (!inner) return tl::unexpected(inner.error());
        if (!adds_nothing(*inner)) t.terms.push_back(std::move(*inner));
      }
      return t;
    }
    auto d = token_duration(tok);
    if (!d) return fail(d.error().message());
    return DelayTerm{.kind = DelayKind::constant, .value = Nanos(*d)};
  }

  core::Result<Nanos> duration() {
    skip();
    const std::size_t start = at_;
    const std::string_view tok = token();
    if (tok.empty()) return fail("expected a duration");
    auto d = token_duration(tok);
    if (!d) {
      at_ = start;
      return fail(d.error().message());
    }
    return Nanos(*d);
  }

  // The run of letters, digits and '.' at the cursor (a duration, or "N" + "ppm"), consumed.
  std::string_view token() {
    const std::size_t start = at_;
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '.')) ++at_;
    return s_.substr(start, at_ - start);
  }
  // A duration token in core's grammar; a bare "0" is zero.
  static core::Result<std::int64_t> token_duration(std::string_view tok) {
    return core::parse_duration_ns(tok == "0" ? std::string_view("0ns") : tok);
  }
  std::string_view word() const {
    std::size_t e = at_;
    while (e < s_.size() && std::isalpha(static_cast<unsigned char>(s_[e]))) ++e;
    return s_.substr(at_, e - at_);
  }
  void skip() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  tl::unexpected<core::Error> fail(const std::string& what) const {
    return core::fail("at column " + std::to_string(at_ + 1) + ": " + what);
  }

  std::string_view s_;
  std::size_t at_ = 0;
};

std::string check_terms(const std::vector<DelayTerm>& terms, Nanos max, bool inside_rare) {
  const std::string range = "must be in [0, " + core::format_duration_ns(max.count()) + "]";
  const auto bad = [max](Nanos v) { return v < Nanos::zero() || v > max; };
  if (terms.size() > kMaxTerms) return "at most " + std::to_string(kMaxTerms) + " terms";
  for (const DelayTerm& t : terms) {
    switch (t.kind) {
      case DelayKind::constant:
      case DelayKind::uniform:
      case DelayKind::exponential:
        if (bad(t.value)) return "each term " + range;
        break;
      case DelayKind::quantiles:
        if (t.points.size() < 2 || t.points.size() > 101) return "quantiles() needs 2..101 values (p0 .. p100)";
        for (std::size_t i = 0; i < t.points.size(); ++i) {
          if (bad(t.points[i])) return "each quantile " + range;
          if (i > 0 && t.points[i] < t.points[i - 1]) return "quantiles must rise (p0 .. p100)";
        }
        break;
      case DelayKind::trace:
        if (t.points.empty() || t.points.size() > 1'000'000) return "trace() needs 1..1,000,000 values";
        for (const Nanos p : t.points)
          if (bad(p)) return "each trace value " + range;
        break;
      case DelayKind::rare:
        if (inside_rare) return "a rare event cannot hold another";
        if (t.ppm < 0 || t.ppm > 1'000'000) return "ppm must be 0..1000000";
        if (auto e = check_terms(t.terms, max, true); !e.empty()) return e;
        break;
    }
  }
  return {};
}

}  // namespace

core::Result<Delay> Delay::parse(std::string_view text) {
  Parser p(text);
  auto d = p.delay();
  if (!d) return core::fail("\"" + std::string(text) + "\" " + d.error().message());
  return d;
}

std::string Delay::to_string() const { return terms_.empty() ? std::string("none") : text(terms_); }

Nanos Delay::draw(Rng& rng) noexcept { return sum(terms_, rng); }

const DelayTerm* Delay::find(DelayKind kind) const noexcept {
  for (const DelayTerm& t : terms_)
    if (t.kind == kind) return &t;
  return nullptr;
}

std::optional<Nanos> Delay::fixed() const noexcept {
  Nanos total = Nanos::zero();
  for (const DelayTerm& t : terms_) {
    if (t.kind != DelayKind::constant) return std::nullopt;
    total += t.value;
  }
  return total;
}

namespace {

double mean_ns(const std::vector<DelayTerm>& terms) noexcept {
  double total = 0;
  for (const DelayTerm& t : terms) {
    const auto v = static_cast<double>(t.value.count());
    switch (t.kind) {
      case DelayKind::constant:
      case DelayKind::exponential: total += v; break;
      case DelayKind::uniform: total += v / 2; break;
      case DelayKind::quantiles:
        // from_quantiles interpolates linearly between neighbours: each segment's mean is the
        // midpoint of its ends, and the segments are equally likely.
        if (t.points.size() >= 2) {
          double s = 0;
          for (std::size_t i = 1; i < t.points.size(); ++i)
            s += (static_cast<double>(t.points[i - 1].count()) + static_cast<double>(t.points[i].count())) / 2;
          total += s / static_cast<double>(t.points.size() - 1);
        } else if (t.points.size() == 1) {
          total += static_cast<double>(t.points.front().count());
        }
        break;
      case DelayKind::trace:
        if (!t.points.empty()) {
          double s = 0;
          for (const Nanos p : t.points) s += static_cast<double>(p.count());
          total += s / static_cast<double>(t.points.size());
        }
        break;
      case DelayKind::rare: total += static_cast<double>(t.ppm) / 1e6 * mean_ns(t.terms); break;
    }
  }
  return total;
}

}  // namespace

Nanos Delay::mean() const noexcept { return Nanos(static_cast<std::int64_t>(std::llround(mean_ns(terms_)))); }

Nanos Delay::least() const noexcept {
  Nanos total = Nanos::zero();
  for (const DelayTerm& t : terms_) {
    switch (t.kind) {
      case DelayKind::constant: total += t.value; break;
      case DelayKind::quantiles:
        if (!t.points.empty()) total += t.points.front();
        break;
      case DelayKind::trace:
        if (!t.points.empty()) total += *std::min_element(t.points.begin(), t.points.end());
        break;
      case DelayKind::uniform:
      case DelayKind::exponential:
      case DelayKind::rare: break;
    }
  }
  return total;
}

Delay Delay::with(DelayTerm t) const {
  std::vector<DelayTerm> out = terms_;
  const auto same = std::find_if(out.begin(), out.end(), [&](const DelayTerm& u) { return u.kind == t.kind; });
  if (same != out.end()) {
    if (adds_nothing(t)) out.erase(same);
    else *same = std::move(t);
  } else if (!adds_nothing(t)) {
    const auto later = std::find_if(out.begin(), out.end(), [&](const DelayTerm& u) { return u.kind > t.kind; });
    out.insert(later, std::move(t));
  }
  return Delay(std::move(out));
}

std::string Delay::check(Nanos max) const { return check_terms(terms_, max, false); }

}  // namespace ackstall::sim
