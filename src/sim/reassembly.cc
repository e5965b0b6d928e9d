#include "ackstall/sim/reassembly.h"

#include <algorithm>
#include <iterator>

namespace ackstall::sim {

void ReassemblyQueue::add(std::int64_t seq, std::int64_t end, bool fin, std::int64_t limit) {
  if (fin && end <= limit) fin_ = end;
  end = std::min(end, limit);
  if (end <= seq) return;
  auto it = ranges_.upper_bound(seq);
  if (it != ranges_.begin()) {
    const auto prev = std::prev(it);
    if (prev->second >= seq) {  // overlaps or touches the range before
      seq = prev->first;
      end = std::max(end, prev->second);
      it = ranges_.erase(prev);
    }
  }
  while (it != ranges_.end() && it->first <= end) {  // swallow the ranges it reaches
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(seq, end);
}

std::int64_t ReassemblyQueue::take_contiguous(std::int64_t rcv_nxt, std::int64_t limit) {
  while (!ranges_.empty() && ranges_.begin()->first <= rcv_nxt) {
    const std::int64_t end = ranges_.begin()->second;
    ranges_.erase(ranges_.begin());
    if (end <= rcv_nxt) continue;  // old bytes (a retransmission overlapped them)
    if (end > limit) {             // no room: drop everything from the limit on
      ranges_.clear();
      fin_ = -1;
      return std::max(rcv_nxt, limit);
    }
    rcv_nxt = end;
  }
  return rcv_nxt;
}

std::int64_t ReassemblyQueue::queued_bytes() const noexcept {
  std::int64_t n = 0;
  for (const auto& [b, e] : ranges_) n += e - b;
  return n;
}

}  // namespace ackstall::sim
