#include "ackstall/ttcp/pattern.h"

namespace ackstall::ttcp {
namespace {

std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

void fill_pattern(std::span<std::byte> out, std::uint64_t offset) noexcept {
  std::size_t i = 0;
  while (i < out.size()) {
    const std::uint64_t pos = offset + i;
    const std::uint64_t word = splitmix64(pos / 8);
    std::size_t b = pos % 8;
    for (; b < 8 && i < out.size(); ++b, ++i) out[i] = static_cast<std::byte>(word >> (8 * b));
  }
}

}  // namespace ackstall::ttcp
