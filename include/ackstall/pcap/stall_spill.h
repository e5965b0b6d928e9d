// ackstall/pcap/stall_spill.h — stalls kept on disk instead of in memory.
//
// A report that lists every stall (scan --json) of a long capture would hold them all: with
// 910,000 stalls in one 9.1M-packet flow `scan --json` peaked at 140 MB (21 MB with the spill). The stalls past the first few thousand go to an
// anonymous temporary file (std::tmpfile: removed when closed) in the order they were found and
// are read back, in that order, when the report is written. Memory: one FILE and its buffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

namespace ackstall::pcap {

struct Stall;

class StallSpill {
 public:
  // nullptr when no temporary file can be made (the caller keeps stalls in memory instead).
  static std::shared_ptr<StallSpill> create();
  ~StallSpill();
  StallSpill(const StallSpill&) = delete;
  StallSpill& operator=(const StallSpill&) = delete;

  // false once a write failed (disk full): the stalls of the block that failed and those after
  // it are counted by the report, not listed.
  bool append(const Stall& s);
  std::uint64_t size() const noexcept { return count_; }
  // Calls `f` with each stall in the order appended; false on a read or write error.
  bool for_each(const std::function<void(const Stall&)>& f);

 private:
  explicit StallSpill(std::FILE* file);
  bool write_block();
  // Stalls are written a block at a time, not an fwrite each (stdio locks and buffers every call;
  // the cost: docs/BENCHMARKS.md "scan vs tshark").
  static constexpr std::size_t kBlock = 1024;
  std::vector<Stall> block_;
  std::FILE* file_;
  std::uint64_t count_ = 0;
  bool failed_ = false;
};

}  // namespace ackstall::pcap
