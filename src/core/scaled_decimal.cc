#include "ackstall/core/scaled_decimal.h"

#include <array>
#include <charconv>
#include <cstring>

namespace ackstall::core {

std::size_t write_scaled_decimal(std::int64_t ns, int scale_digits, char* out) noexcept {
  constexpr std::uint64_t kLimit = 1'000'000'000'000'000;  // 10^15: at most 15 significant digits
  constexpr std::array<std::uint64_t, 10> kPow10 = {1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000,
                                                     100'000'000, 1'000'000'000};
  if (scale_digits < 1 || scale_digits > 9) return 0;
  const std::uint64_t scale = kPow10[static_cast<std::size_t>(scale_digits)];
  const bool negative = ns < 0;
  const std::uint64_t mag = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  if (mag >= kLimit) return 0;
  if (mag == 0) {
    out[0] = '0';
    return 1;
  }
  // fmt prints values below 1e-4 in exponent notation ("5e-06").
  if (mag * 10'000 < scale) return 0;
  char* p = out;
  if (negative) *p++ = '-';
  p = std::to_chars(p, out + kScaledDecimalMax, mag / scale).ptr;
  std::uint64_t frac = mag % scale;
  if (frac == 0) return static_cast<std::size_t>(p - out);
  int width = scale_digits;
  while (frac % 10 == 0) {  // trailing zeros are not printed
    frac /= 10;
    --width;
  }
  char digits[10];
  const auto len = static_cast<int>(std::to_chars(digits, digits + sizeof digits, frac).ptr - digits);
  *p++ = '.';
  for (int i = len; i < width; ++i) *p++ = '0';  // the fraction's leading zeros
  std::memcpy(p, digits, static_cast<std::size_t>(len));
  return static_cast<std::size_t>(p + len - out);
}

}  // namespace ackstall::core
