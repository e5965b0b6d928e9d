// tests/net/stream_hash.h — a 64-bit hash of a byte stream that does not depend on how the
// stream was cut into pieces (feed(a); feed(b) == feed(a+b)). Word-at-a-time, order-sensitive.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace ackstall::net::testing {

// Copies n bytes of the endless stream whose byte i is ref[i % ref.size()], from stream
// offset `offset`, to dst (wrapping around the reference as often as needed).
inline void copy_from_ring(std::span<const std::byte> ref, std::uint64_t offset, std::byte* dst,
                           std::size_t n) {
  std::size_t at = static_cast<std::size_t>(offset % ref.size());
  for (std::size_t done = 0; done < n;) {
    const std::size_t c = std::min(n - done, ref.size() - at);
    std::memcpy(dst + done, ref.data() + at, c);
    done += c;
    at = (at + c) % ref.size();
  }
}

class StreamHash {
 public:
  void feed(const std::byte* p, std::size_t n) {
    bytes_ += n;
    while (n > 0 && fill_ > 0 && fill_ < 8) {  // finish a pending partial word
      pending_[fill_++] = *p++;
      --n;
      if (fill_ == 8) {
        mix(load(pending_));
        fill_ = 0;
      }
    }
    for (; n >= 8; n -= 8, p += 8) mix(load(p));
    for (; n > 0; --n) pending_[fill_++] = *p++;
  }
  std::uint64_t digest() const {
    std::uint64_t h = h_;
    for (std::size_t i = 0; i < fill_; ++i) h = (h ^ std::to_integer<std::uint64_t>(pending_[i])) * kMul;
    return (h ^ bytes_) * kMul;
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  static constexpr std::uint64_t kMul = 0x100000001B3ull * 0x9E3779B97F4A7C15ull | 1;
  static std::uint64_t load(const std::byte* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  void mix(std::uint64_t w) {
    h_ = (h_ ^ w) * kMul;
    h_ ^= h_ >> 31;
  }
  std::uint64_t h_ = 0xCBF29CE484222325ull;
  std::uint64_t bytes_ = 0;
  std::byte pending_[8] = {};
  std::size_t fill_ = 0;
};

}  // namespace ackstall::net::testing
