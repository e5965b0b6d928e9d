// ackstall/pcap/payload_pattern.h — the bytes the writer puts in a segment's payload.
//
// Payload byte at sequence number s is 0x20 + (s mod 95): printable ASCII, a pure function of
// the 32-bit sequence number (wrapping with it), so a capture can carry payload and correct
// checksums without anyone storing the data.
//
// payload_word_sum(seq, len) is the sum of the payload as big-endian 16-bit words starting at an
// even offset (a final odd byte is the high half of a word) — what InternetChecksum::add would
// accumulate — in O(1) + O(190): every 190 consecutive bytes hold each residue once at an even
// and once at an odd position (95 is odd), so they always sum to the same constant.
#pragma once

#include <cstdint>
#include <span>

namespace ackstall::pcap {

constexpr std::uint8_t payload_byte(std::uint32_t seq) noexcept {
  return static_cast<std::uint8_t>(0x20 + seq % 95);
}

// Fills out[i] = payload_byte(seq + i).
void fill_payload(std::uint32_t seq, std::span<std::uint8_t> out) noexcept;

std::uint64_t payload_word_sum(std::uint32_t seq, std::uint32_t len) noexcept;

}  // namespace ackstall::pcap
