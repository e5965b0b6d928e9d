// Maps of a sweep (`sim --sweep ... --plot FILE`): a line chart of goodput for one swept key; for
// two, one line per value of the second key when it has at most kMaxSeries values (e.g. a latency
// x policy), else a heatmap (log colour scale, stalled cells marked); small multiples of heatmaps
// for a third (one panel per value of the third key). Drawn by gnuplot in the format of FILE's
// extension. Cells are written to a scratch file as they arrive, so memory stays flat.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "ackstall/scenario/sweep.h"
#include "ackstall/sim/experiment.h"
#include "ackstall/report/gnuplot.h"

namespace ackstall::report {

// Two swept keys whose second has at most this many values are drawn as lines, not a heatmap.
inline constexpr std::size_t kMaxSeries = 6;

class MapData {
 public:
  // Fails on more than three swept keys or a bad plot path.
  static core::Result<std::unique_ptr<MapData>> make(const scenario::Sweep& sweep, std::string path);
  void add(std::uint64_t cell, const sim::Summary& s);
  core::Result<void> render(const std::string& title);

 private:
  MapData(const scenario::Sweep& sweep, std::string path, std::string terminal, ScratchDir dir);
  void script_line(std::ostream& gp) const;
  core::Result<void> write_series() const;
  void script_series(std::ostream& gp) const;
  void script_heatmap(std::ostream& gp) const;

  const scenario::Sweep& sweep_;
  std::string path_, terminal_;
  ScratchDir dir_;
  std::ofstream data_;
  double max_goodput_ = 0;
  std::string gp_title_;
};

}  // namespace ackstall::report
