#include "ackstall/core/scaled_decimal.h"

#include <array>
#include <bit>
#include <cstring>

namespace ackstall::core {
namespace {

constexpr std::array<std::uint64_t, 20> kPow10 = {1ULL,
                                                  10ULL,
                                                  100ULL,
                                                  1'000ULL,
                                                  10'000ULL,
                                                  100'000ULL,
                                                  1'000'000ULL,
                                                  10'000'000ULL,
                                                  100'000'000ULL,
                                                  1'000'000'000ULL,
                                                  10'000'000'000ULL,
                                                  100'000'000'000ULL,
                                                  1'000'000'000'000ULL,
                                                  10'000'000'000'000ULL,
                                                  100'000'000'000'000ULL,
                                                  1'000'000'000'000'000ULL,
                                                  10'000'000'000'000'000ULL,
                                                  100'000'000'000'000'000ULL,
                                                  1'000'000'000'000'000'000ULL,
                                                  10'000'000'000'000'000'000ULL};

// "00", "01", ... "99": two digits a step.
constexpr std::array<char, 200> kPairs = [] {
  std::array<char, 200> t{};
  for (std::size_t i = 0; i < 100; ++i) {
    t[2 * i] = static_cast<char>('0' + i / 10);
    t[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// The number of decimal digits of v (1 for 0): log10 from the bit width (1233 / 4096 ~ log10 2),
// corrected by one comparison (Sean Eron Anderson, "Bit Twiddling Hacks": IntegerLog10).
unsigned digits_of(std::uint64_t v) noexcept {
  const unsigned guess = (static_cast<unsigned>(std::bit_width(v)) * 1233) >> 12;  // the digits, or one more
  return guess + static_cast<unsigned>(v >= kPow10[guess]) + static_cast<unsigned>(v == 0);
}

// Writes the `n` low digits of v (v < 10^n, leading zeros included) ending at `end`; in 32 bits
// when v fits (most: frame numbers, sequence numbers, fractions), whose divisions by 100 are cheaper.
template <class Uint>
void put_digits_as(Uint v, unsigned n, char* end) noexcept {
  while (n >= 2) {
    end -= 2;
    std::memcpy(end, kPairs.data() + 2 * (v % 100), 2);
    v /= 100;
    n -= 2;
  }
  if (n == 1) end[-1] = static_cast<char>('0' + v);
}

void put_digits(std::uint64_t v, unsigned n, char* end) noexcept {
  if (v <= 0xffff'ffffU) {
    put_digits_as(static_cast<std::uint32_t>(v), n, end);
  } else {
    put_digits_as(v, n, end);
  }
}

// write_scaled_decimal for one scale: its divisions by constants (multiplications).
template <unsigned Scale>
std::size_t write_scaled(std::uint64_t mag, bool negative, char* out) noexcept {
  constexpr std::uint64_t kScale = kPow10[Scale];
  // fmt prints values below 1e-4 in exponent notation ("5e-06").
  if (mag * 10'000 < kScale) return 0;
  char* p = out;
  if (negative) *p++ = '-';
  p = write_decimal(mag / kScale, p);
  const std::uint64_t frac = mag % kScale;
  if (frac == 0) return static_cast<std::size_t>(p - out);
  *p++ = '.';
  put_digits(frac, Scale, p + Scale);  // with the fraction's leading zeros
  p += Scale;
  while (p[-1] == '0') --p;  // trailing zeros are not printed (frac > 0: a digit stays)
  return static_cast<std::size_t>(p - out);
}

}  // namespace

char* write_decimal(std::uint64_t v, char* out) noexcept {
  const unsigned n = digits_of(v);
  put_digits(v, n, out + n);
  return out + n;
}

std::size_t write_scaled_decimal(std::int64_t ns, int scale_digits, char* out) noexcept {
  constexpr std::uint64_t kLimit = 1'000'000'000'000'000;  // 10^15: at most 15 significant digits
  const bool negative = ns < 0;
  const std::uint64_t mag = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  if (mag >= kLimit || scale_digits < 1 || scale_digits > 9) return 0;
  if (mag == 0) {
    out[0] = '0';
    return 1;
  }
  switch (scale_digits) {
    case 1: return write_scaled<1>(mag, negative, out);
    case 2: return write_scaled<2>(mag, negative, out);
    case 3: return write_scaled<3>(mag, negative, out);
    case 4: return write_scaled<4>(mag, negative, out);
    case 5: return write_scaled<5>(mag, negative, out);
    case 6: return write_scaled<6>(mag, negative, out);
    case 7: return write_scaled<7>(mag, negative, out);
    case 8: return write_scaled<8>(mag, negative, out);
    default: return write_scaled<9>(mag, negative, out);
  }
}

}  // namespace ackstall::core
