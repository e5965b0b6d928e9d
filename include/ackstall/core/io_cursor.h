// ackstall/core/io_cursor.h — zero-copy walk over a scatter/gather list (the seed's nextchunk).
//
// Contract:
//   * IoCursor borrows a span of ByteSlice (pointer + length, like iovec / WSABUF) and never
//     copies payload bytes. The slices and the memory they point to must outlive the cursor.
//   * prepare(max_bytes, out) writes at most out.size() slices covering the next
//     min(max_bytes, remaining()) bytes (fewer if out.size() slices run out first), skipping
//     zero-length slices, and returns how many slices it wrote. The first slice may start inside
//     an input slice (after a partial consume); the last may end inside one. prepare() does not
//     advance the cursor; calling it twice returns the same slices.
//   * consume(n) advances by n bytes, n <= remaining(): any n, including a short send that ends
//     in the middle of a slice. consume(0) is a no-op.
//   * Conversion to iovec / WSABUF happens only in the socket layer (net).
// Complexity: prepare is O(slices written + zero-length slices skipped), consume is
// O(slices crossed). No allocation.
#pragma once

#include <cstddef>
#include <span>

namespace ackstall::core {

struct ByteSlice {
  const void* data = nullptr;
  std::size_t size = 0;
};

class IoCursor {
 public:
  explicit IoCursor(std::span<const ByteSlice> slices) noexcept;

  std::size_t prepare(std::size_t max_bytes, std::span<ByteSlice> out) const noexcept;
  void consume(std::size_t n) noexcept;

  bool empty() const noexcept { return remaining_ == 0; }
  std::size_t remaining() const noexcept { return remaining_; }
  std::size_t total_consumed() const noexcept { return consumed_; }

 private:
  std::span<const ByteSlice> slices_;
  std::size_t index_ = 0;   // current slice
  std::size_t offset_ = 0;  // bytes of slices_[index_] already consumed
  std::size_t remaining_ = 0;
  std::size_t consumed_ = 0;
};

}  // namespace ackstall::core
