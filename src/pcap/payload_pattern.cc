#include "ackstall/pcap/payload_pattern.h"

namespace ackstall::pcap {
namespace {

// 257 * (sum of 0x20 + r, r = 0..94): the word sum of any 190 consecutive pattern bytes that do
// not cross the 2^32 wrap, starting at an even offset (see the header).
constexpr std::uint64_t kBlockSum = 257 * (95 * 0x20 + 95 * 94 / 2);

std::uint64_t slow_sum(std::uint32_t seq, std::uint32_t len) noexcept {
  std::uint64_t sum = 0;
  for (std::uint32_t i = 0; i < len; ++i) {
    const std::uint64_t b = payload_byte(seq + i);
    sum += (i % 2 == 0) ? b << 8 : b;
  }
  return sum;
}

}  // namespace

void fill_payload(std::uint32_t seq, std::span<std::uint8_t> out) noexcept {
  std::uint32_t r = seq % 95;
  for (std::uint8_t& b : out) {
    b = static_cast<std::uint8_t>(0x20 + r);
    ++seq;
    r = (seq == 0) ? 0 : (r == 94 ? 0 : r + 1);
  }
}

std::uint64_t payload_word_sum(std::uint32_t seq, std::uint32_t len) noexcept {
  if (std::uint64_t{seq} + len > (std::uint64_t{1} << 32)) return slow_sum(seq, len);  // wraps
  const std::uint32_t blocks = len / 190;
  return blocks * kBlockSum + slow_sum(seq + blocks * 190, len % 190);
}

}  // namespace ackstall::pcap
