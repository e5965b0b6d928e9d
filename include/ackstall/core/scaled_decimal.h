// ackstall/core/scaled_decimal.h — an integer count of small units (nanoseconds) written as a
// decimal number of a larger unit (milliseconds, seconds) without going through a double.
//
// Reports print durations as the shortest decimal that reads back as the double ns / 10^k (what
// fmt's "{}" prints: Dragonbox, Junekey Jeon 2020). When |ns| < 10^15 the exact quotient has at
// most 15 significant digits, and a double (53-bit significand: 15.95 decimal digits) holds it
// closer than any other decimal of 15 digits or fewer, so the shortest round-trip text IS the
// exact quotient with its trailing zeros removed. fmt switches to exponent notation when the
// decimal exponent is below -4 (values under 1e-4); those values, and |ns| >= 10^15, are left to
// the caller's general formatter. Writing the exact quotient costs a fifth of the shortest
// round-trip search (callgrind, docs/BENCHMARKS.md "scan --json").
#pragma once

#include <cstddef>
#include <cstdint>

namespace ackstall::core {

// The longest text append_scaled_decimal writes: sign, 15 digits, point.
inline constexpr std::size_t kScaledDecimalMax = 17;

// Writes ns / 10^scale_digits (1 <= scale_digits <= 9) as fmt's "{}" would print the double
// static_cast<double>(ns) / 10^scale_digits ("41.227", "200", "0", "-1.5") into `out` and returns
// the number of characters, or 0 when that text needs exponent notation or more than 15 digits
// (the caller formats the double instead).
std::size_t write_scaled_decimal(std::int64_t ns, int scale_digits, char* out) noexcept;

// The longest text write_decimal writes: 2^64 - 1 has 20 digits.
inline constexpr std::size_t kDecimalMax = 20;

// Writes v in decimal (what std::to_chars writes) into `out`; returns the end of the text.
// Two digits a step from a table, the length known first (the cost against std::to_chars in a
// stall line of `scan --json`: docs/BENCHMARKS.md "scan vs tshark").
char* write_decimal(std::uint64_t v, char* out) noexcept;

}  // namespace ackstall::core
