// ackstall/pcap/checksum.h — the Internet checksum (RFC 1071), streaming.
//
// Feed bytes in order with add() in pieces of any length (odd lengths included: the next piece
// continues the 16-bit word), or whole pre-summed words with add_word_sum() when at an even
// offset. finish() returns the one's-complement checksum to put in the header; a buffer that
// already contains its correct checksum finishes to 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ackstall::pcap {

class InternetChecksum {
 public:
  void add(std::span<const std::uint8_t> bytes) noexcept;
  void add_u16(std::uint16_t v) noexcept { add_word_sum(v); }
  void add_u32(std::uint32_t v) noexcept { add_word_sum((v >> 16) + (v & 0xffff)); }
  // Adds a sum of big-endian 16-bit words; the stream must be at an even offset.
  void add_word_sum(std::uint64_t sum) noexcept { sum_ += sum; }
  bool at_odd_offset() const noexcept { return odd_; }
  std::uint16_t finish() const noexcept;

 private:
  std::uint64_t sum_ = 0;
  bool odd_ = false;
};

// Folds a sum of 16-bit words to 16 bits (end-around carry), without complementing.
std::uint16_t fold_checksum(std::uint64_t sum) noexcept;

}  // namespace ackstall::pcap
