#include "ackstall/core/io_cursor.h"

#include <algorithm>
#include <cassert>

namespace ackstall::core {

IoCursor::IoCursor(std::span<const ByteSlice> slices) noexcept : slices_(slices) {
  for (const ByteSlice& s : slices_) remaining_ += s.size;
}

std::size_t IoCursor::prepare(std::size_t max_bytes, std::span<ByteSlice> out) const noexcept {
  std::size_t want = std::min(max_bytes, remaining_);
  std::size_t written = 0;
  std::size_t offset = offset_;
  for (std::size_t i = index_; want > 0 && i < slices_.size() && written < out.size(); ++i) {
    const ByteSlice& s = slices_[i];
    const std::size_t avail = s.size - offset;
    if (avail > 0) {
      const std::size_t take = std::min(avail, want);
      out[written++] = ByteSlice{static_cast<const std::byte*>(s.data) + offset, take};
      want -= take;
    }
    offset = 0;
  }
  return written;
}

void IoCursor::consume(std::size_t n) noexcept {
  assert(n <= remaining_);
  n = std::min(n, remaining_);
  remaining_ -= n;
  consumed_ += n;
  while (n > 0) {
    const std::size_t avail = slices_[index_].size - offset_;
    if (n < avail) {
      offset_ += n;
      return;
    }
    n -= avail;
    ++index_;
    offset_ = 0;
  }
  // Skip exhausted and zero-length slices so prepare() starts on a live one.
  while (index_ < slices_.size() && slices_[index_].size == offset_) {
    ++index_;
    offset_ = 0;
  }
}

}  // namespace ackstall::core
