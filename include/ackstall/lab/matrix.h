// ackstall/lab/matrix.h — `ackstall lab matrix`'s cells and their files: per write length and
// case (unpatched, chunked, robust, nodelay) the runs' figures and their medians, written as JSON
// or CSV; and the capture of a cell on the receiver's veth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/lab/process.h"

namespace ackstall::lab {

// The median of `v` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> v);
// The smallest and the largest of `v`; 0 for none.
double min_of(const std::vector<double>& v);
double max_of(const std::vector<double>& v);
// PART / WHOLE, 0 when WHOLE is not positive (a line rate not measured).
double fraction_of(double part, double whole);

// One cell: a write length and a case, one entry per run.
struct MatrixCell {
  std::int64_t len = 0;
  std::string kase;
  std::vector<double> mbps, stalls_per_s, waited_ms_per_s;
  std::vector<std::uint64_t> stalls;
  std::string capture;  // the cell's pcapng (--capture-dir), or empty
};

// What the matrix ran under (the JSON file's "config").
struct MatrixSetup {
  std::string ack_mode, rate;
  std::int64_t quota = 0;
  bool timestamps = false, realtime = false;
  int runs = 0;
  double seconds = 0;
  double line_mb_s = 0;  // the link's payload rate (lab::line_rate_bytes_per_s), MB/s
};

// The matrix as JSON (config, line rate, one row per cell with its runs and medians) or CSV (one
// line per cell: medians, min and max); an error naming PATH when it cannot be written.
core::Result<void> write_matrix_json(const std::string& path, const MatrixSetup& setup,
                                     const std::vector<MatrixCell>& cells);
core::Result<void> write_matrix_csv(const std::string& path, const MatrixSetup& setup,
                                    const std::vector<MatrixCell>& cells);

// dumpcap on the receiver's veth (ackstall-b), headers only (128 bytes a frame), into `path`;
// returns once it captures (it has written the file's first block), or an error naming what
// failed.
core::Result<BackgroundCommand> start_cell_capture(const std::string& path);

}  // namespace ackstall::lab
