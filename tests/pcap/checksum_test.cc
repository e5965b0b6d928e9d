#include "ackstall/pcap/checksum.h"

#include <gtest/gtest.h>

#include <vector>

#include "ackstall/pcap/payload_pattern.h"

namespace ackstall::pcap {
namespace {

TEST(InternetChecksum, Rfc1071Example) {
  // RFC 1071 §3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 (checksum = ~ddf2 = 220d).
  const std::vector<std::uint8_t> b = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  InternetChecksum c;
  c.add(b);
  EXPECT_EQ(c.finish(), 0x220d);
}

TEST(InternetChecksum, StreamingInOddPiecesEqualsOneShot) {
  std::vector<std::uint8_t> b(1001);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 37 + 11);
  InternetChecksum whole;
  whole.add(b);
  for (std::size_t step : {1u, 3u, 7u, 64u, 999u}) {
    InternetChecksum parts;
    for (std::size_t i = 0; i < b.size(); i += step) {
      parts.add(std::span(b).subspan(i, std::min(step, b.size() - i)));
    }
    EXPECT_EQ(parts.finish(), whole.finish()) << step;
  }
}

std::uint64_t naive_pattern_sum(std::uint32_t seq, std::uint32_t len) {
  std::vector<std::uint8_t> bytes(len);
  for (std::uint32_t i = 0; i < len; ++i) bytes[i] = static_cast<std::uint8_t>(0x20 + (seq + i) % 95);
  std::uint64_t sum = 0;
  for (std::uint32_t i = 0; i < len; i += 2) {
    sum += (std::uint64_t{bytes[i]} << 8) | (i + 1 < len ? bytes[i + 1] : 0);
  }
  return sum;
}

TEST(PayloadPattern, WordSumMatchesNaiveSumIncludingWrap) {
  for (std::uint32_t seq : {0u, 1u, 94u, 95u, 12345u, 0xfffffff0u, 0xffffffffu, 0xfffff000u}) {
    for (std::uint32_t len : {0u, 1u, 2u, 189u, 190u, 191u, 380u, 1448u, 1460u, 65495u}) {
      EXPECT_EQ(payload_word_sum(seq, len), naive_pattern_sum(seq, len)) << seq << " " << len;
    }
  }
}

TEST(PayloadPattern, FillMatchesByteFunctionAcrossWrap) {
  std::vector<std::uint8_t> out(300);
  fill_payload(0xffffff00u, out);
  for (std::uint32_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i], payload_byte(0xffffff00u + i)) << i;
  }
}

}  // namespace
}  // namespace ackstall::pcap
