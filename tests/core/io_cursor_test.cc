#include "ackstall/core/io_cursor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace ackstall::core {
namespace {

std::vector<std::uint8_t> gather(std::span<const ByteSlice> slices) {
  std::vector<std::uint8_t> out;
  for (const ByteSlice& s : slices) {
    const auto* p = static_cast<const std::uint8_t*>(s.data);
    out.insert(out.end(), p, p + s.size);
  }
  return out;
}

TEST(IoCursor, EmptyList) {
  IoCursor c({});
  std::array<ByteSlice, 4> out{};
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.prepare(100, out), 0u);
  c.consume(0);
  EXPECT_EQ(c.total_consumed(), 0u);
}

TEST(IoCursor, SplitsInsideSlicesWithoutCopying) {
  const char a[] = "abcdef", b[] = "ghij";
  const ByteSlice in[] = {{a, 6}, {nullptr, 0}, {b, 4}};
  IoCursor c(in);
  std::array<ByteSlice, 8> out{};
  ASSERT_EQ(c.prepare(4, out), 1u);
  EXPECT_EQ(out[0].data, a);
  EXPECT_EQ(out[0].size, 4u);
  c.consume(3);  // short send ending mid-slice
  ASSERT_EQ(c.prepare(100, out), 2u);
  EXPECT_EQ(out[0].data, a + 3);
  EXPECT_EQ(out[0].size, 3u);
  EXPECT_EQ(out[1].data, b);  // zero-length slice skipped
  EXPECT_EQ(out[1].size, 4u);
  c.consume(3);
  EXPECT_EQ(c.remaining(), 4u);
  ASSERT_EQ(c.prepare(2, out), 1u);
  EXPECT_EQ(out[0].data, b);
  c.consume(4);
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.total_consumed(), 10u);
}

TEST(IoCursor, SliceLimitCapsPreparedBytes) {
  std::vector<std::uint8_t> data(100);
  std::vector<ByteSlice> in;
  for (std::size_t i = 0; i < 100; i += 10) in.push_back({data.data() + i, 10});
  IoCursor c(in);
  std::array<ByteSlice, 3> out{};
  ASSERT_EQ(c.prepare(1000, out), 3u);
  std::size_t bytes = 0;
  for (auto& s : out) bytes += s.size;
  EXPECT_EQ(bytes, 30u);
}

// Property: for random layouts (including zero-length slices), random prepare limits and random
// short consumes, the concatenation of what was consumed is exactly the input stream.
TEST(IoCursor, RandomLayoutsReassembleExactly) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<std::uint8_t> stream(std::uniform_int_distribution<std::size_t>(0, 3000)(rng));
    for (auto& b : stream) b = static_cast<std::uint8_t>(rng());
    std::vector<ByteSlice> slices;
    std::size_t pos = 0;
    while (pos < stream.size() || (rng() % 4 == 0 && slices.size() < 64)) {
      std::size_t len = rng() % 3 == 0 ? 0 : std::uniform_int_distribution<std::size_t>(1, 400)(rng);
      len = std::min(len, stream.size() - pos);
      slices.push_back({stream.data() + pos, len});
      pos += len;
    }
    IoCursor c(slices);
    ASSERT_EQ(c.remaining(), stream.size());
    std::vector<std::uint8_t> got;
    std::array<ByteSlice, 16> storage{};
    while (!c.empty()) {
      const std::size_t cap = 1 + rng() % storage.size();
      const std::size_t max_bytes = 1 + rng() % 2000;
      const std::size_t n = c.prepare(max_bytes, std::span(storage).first(cap));
      ASSERT_GE(n, 1u);
      ASSERT_LE(n, cap);
      const auto prepared = gather(std::span(storage).first(n));
      ASSERT_LE(prepared.size(), max_bytes);
      ASSERT_GT(prepared.size(), 0u);
      for (std::size_t i = 0; i < n; ++i) ASSERT_GT(storage[i].size, 0u);
      // Pointers must point into the caller's memory, in order (zero copy).
      ASSERT_EQ(storage[0].data, stream.data() + c.total_consumed());
      const std::size_t take = rng() % 3 == 0 ? prepared.size() : rng() % (prepared.size() + 1);
      got.insert(got.end(), prepared.begin(), prepared.begin() + static_cast<std::ptrdiff_t>(take));
      c.consume(take);
      ASSERT_EQ(c.total_consumed(), got.size());
      ASSERT_EQ(c.remaining(), stream.size() - got.size());
    }
    ASSERT_EQ(got, stream);
  }
}

}  // namespace
}  // namespace ackstall::core
