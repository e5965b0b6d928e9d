// ackstall/sim/delay.h — one random delay, as every delay of the model is written (the
// transmitter's and the reader's wake-ups, the shaper's lateness).
//
// A Delay is a sum of terms, drawn in the order written (the order of the RNG calls, so a run
// depends on it). The one grammar, as scenario keys take it:
//
//   delay     := "none" | term ("+" term)*                  "none" (or "0"): no delay
//   term      := DURATION                                   a constant, core's grammar: "15us"
//              | "uniform(" DURATION ")"                    uniform in [0, d)
//              | "exp(" DURATION ")"                        exponential of mean d
//              | "quantiles(" DURATION ("," DURATION)* ")"  n >= 2 evenly spaced quantiles
//                                                           p0 .. p100, rising: inverse transform,
//                                                           linear between neighbours
//              | "trace(" DURATION ("," DURATION)* ")"      the values replayed in order,
//                                                           cyclically (no RNG draw)
//              | INTEGER "ppm" "*" "(" delay ")"            a rare event: that many draws per
//              | INTEGER "ppm" "*" term                     million add the inner delay
//
// e.g. "15us + exp(30us) + 120ppm * (171us + exp(250us))", "quantiles(1us, 5us, 40us)".
// Spaces between tokens are free. A term that cannot add anything (a zero constant, uniform(0),
// exp(0), an empty list) draws no random number, so a run without a delay keeps its random
// stream. A rare term draws one number (Rng::below(1e6)) whenever its ppm > 0.
//
// Draws: uniform = Rng::uniform, exp = sim::exponential, quantiles = sim::from_quantiles
// (engine.h); a rare event is rng.below(1'000'000) < ppm, then the inner terms.
#pragma once

#include "ackstall/core/error.h"
#include "ackstall/sim/engine.h"
#include "ackstall/sim/time.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ackstall::sim {

// Term kinds in their canonical order (Delay::with inserts a missing kind at its place).
enum class DelayKind : std::uint8_t { quantiles, constant, uniform, exponential, trace, rare };

struct DelayTerm {
  DelayKind kind = DelayKind::constant;
  Nanos value = Nanos::zero();     // constant; uniform's span; exponential's mean
  std::vector<Nanos> points{};     // quantiles p0 .. p100; trace values
  std::int64_t ppm = 0;            // rare: draws per million that add `terms`
  std::vector<DelayTerm> terms{};  // rare: the extra delay
  std::size_t next = 0;            // trace: the element the next draw returns (draw state)

  friend bool operator==(const DelayTerm& a, const DelayTerm& b) noexcept {  // `next` aside
    return a.kind == b.kind && a.value == b.value && a.points == b.points && a.ppm == b.ppm &&
           a.terms == b.terms;
  }
};

class Delay {
 public:
  Delay() = default;  // none
  explicit Delay(Nanos constant) {
    if (constant != Nanos::zero()) terms_.push_back({.kind = DelayKind::constant, .value = constant});
  }
  explicit Delay(std::vector<DelayTerm> terms) : terms_(std::move(terms)) {}

  // TEXT in the grammar above; fails with one line naming what was expected where.
  static core::Result<Delay> parse(std::string_view text);
  // The canonical text ("none" for no terms); parse(to_string()) == *this.
  std::string to_string() const;

  // One draw: the terms' sum, in order. Advances the trace terms' positions.
  Nanos draw(Rng& rng) noexcept;

  bool none() const noexcept { return terms_.empty(); }
  std::span<const DelayTerm> terms() const noexcept { return terms_; }
  // The first top-level term of KIND, or nullptr.
  const DelayTerm* find(DelayKind kind) const noexcept;
  // The value every draw returns when the delay has only constant terms (none: 0), else nullopt.
  // A constant delay draws no random number (above), so this is what draw() returns.
  std::optional<Nanos> fixed() const noexcept;
  // The expected draw, rounded to the nanosecond: constants, d/2 for uniform(d), d for exp(d),
  // the mean of the piecewise-linear inverse CDF for quantiles (the trapezoids' average), a
  // trace's average, ppm/1e6 of the inner mean. For analytical uses that need one number (an
  // RTT, an explanation); the model itself draws.
  Nanos mean() const noexcept;
  // The least value a draw can take: constants, quantiles' p0, a trace's least value (uniform,
  // exp and a rare event can add 0).
  Nanos least() const noexcept;
  // This delay with T in place of its first term of T's kind, or T inserted before the first
  // term of a later kind (DelayKind order); a term that adds nothing (see above) removes it,
  // except a rare term, which keeps its inner terms for a later ppm. The scenario's old keys
  // (app.receiver.read_jitter ...) each set one term this way.
  Delay with(DelayTerm t) const;
  // The first problem, as one line (values in [0, max]; at most 32 terms a sum; quantiles 2..101
  // rising; a trace of at most 1,000,000 values; ppm 0..1000000; no rare event in a rare event).
  std::string check(Nanos max) const;

  friend bool operator==(const Delay&, const Delay&) = default;

 private:
  std::vector<DelayTerm> terms_;
};

// The grammar in one line, for key listings and errors.
inline constexpr std::string_view kDelayGrammar =
    "a sum of terms: 15us, uniform(50us), exp(30us), quantiles(1us,5us,40us), trace(0us,19us), "
    "120ppm * (171us + exp(250us)); or none";

}  // namespace ackstall::sim
