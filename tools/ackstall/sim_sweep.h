// `ackstall sim --sweep`: runs every cell of a sweep (scenario/sweep.h) on parallel threads and
// streams one row per cell, in cell order, as text, CSV or JSON lines: memory stays flat in the
// number of cells (results wait in a reorder window of a few cells per thread).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/units.h"
#include "ackstall/scenario/sweep.h"
#include "app.h"

namespace ackstall::tools {

struct SweepRun {
  std::string source;              // the scenario file, or "(defaults)"
  std::string title;               // the map's title (the scenario's name, else its source)
  std::string toml;                // its text (empty: the defaults)
  std::vector<std::string> sets;   // --set, applied before each cell's values
  scenario::Sweep sweep;
  scenario::Shard shard;
  unsigned jobs = 1;
  std::optional<core::StallThreshold> stall_threshold;
  std::string csv_path;            // "" none, "-" stdout
  bool json_lines = false;         // JSON lines on stdout
  std::string plot_path;           // a map (sim_map.h)
  bool progress = false;           // a progress line on stderr
};

int run_sweep(const SweepRun& run, Io io);

}  // namespace ackstall::tools
