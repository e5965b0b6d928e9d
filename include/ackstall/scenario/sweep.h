// ackstall/scenario/sweep.h — parameter sweeps over scenario keys (`ackstall sim --sweep`).
//
// One axis is KEY=VALUES, VALUES in the key's own grammar (fields.h, core/units.h):
//   KEY=V1,V2,...     a list ("app.transmitter.chunking=none,seed,robust", "receiver.profile=linux,windows")
//   KEY=A..B:STEP     an arithmetic range, B included when it falls on a step ("write_len=1k..64k:1k")
//   KEY=A..B:xF       a geometric range, each value F times the last, F > 1 ("send_buffer.size=1k..256k:x2")
// Ranges take integer, size, duration and rate keys. Several axes make the cartesian product;
// cells are numbered 0..cells()-1 with the LAST axis varying fastest (as nested loops written in
// the order given). A shard I/N (1 <= I <= N) is the cells c with c % N == I - 1: interleaved, so
// every shard gets a similar mix of cheap and expensive cells.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/core/error.h"

namespace ackstall::scenario {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;  // each as it would follow "--set KEY="
  bool geometric = false;           // from an A..B:xF range (a map draws it on a log axis)
};

// Parses one axis; the error names the key and the value at fault.
core::Result<SweepAxis> parse_sweep_axis(std::string_view spec);

struct Shard {
  std::uint64_t index = 1, count = 1;  // 1-based: shard I of N
};
core::Result<Shard> parse_shard(std::string_view spec);  // "I/N"

class Sweep {
 public:
  // Fails on a key swept twice or more than kMaxCells cells.
  static core::Result<Sweep> make(std::vector<SweepAxis> axes);
  static constexpr std::uint64_t kMaxCells = std::uint64_t{1} << 40;

  const std::vector<SweepAxis>& axes() const { return axes_; }
  std::uint64_t cells() const { return cells_; }
  // The value index on each axis of CELL.
  std::vector<std::size_t> coordinates(std::uint64_t cell) const;
  // "key=value" for each axis of CELL, in axis order.
  std::vector<std::string> sets(std::uint64_t cell) const;
  // The cells of SHARD, in order: shard.index - 1, + count, ...
  std::uint64_t shard_cells(Shard shard) const;
  std::uint64_t shard_cell(Shard shard, std::uint64_t k) const { return shard.index - 1 + k * shard.count; }

 private:
  std::vector<SweepAxis> axes_;
  std::uint64_t cells_ = 1;
};

}  // namespace ackstall::scenario
