#include "ackstall/report/sim_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>
#include <cmath>

namespace ackstall::report {
namespace {

// Goodput below this (MiB/s) is drawn at this value: a log scale has no zero.
constexpr double kFloor = 0.001;

// `set Xtics (...)` labelling every value of AXIS, thinned to at most ~16 labels.
std::string tics(const char* which, const scenario::SweepAxis& axis) {
  const std::size_t n = axis.values.size();
  const std::size_t every = std::max<std::size_t>(1, (n + 15) / 16);
  std::string out = fmt::format("set {}tics (", which);
  for (std::size_t i = 0; i < n; i += every)
    out += fmt::format("{}{} {}", i ? ", " : "", gp_quote(axis.values[i]), i);
  return out + ")\n";
}

std::string short_key(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

}  // namespace

core::Result<std::unique_ptr<MapData>> MapData::make(const scenario::Sweep& sweep, std::string path) {
  const std::size_t axes = sweep.axes().size();
  if (axes > 3) return core::fail("--plot draws maps of 1 to 3 swept keys, not " + std::to_string(axes));
  const int width = axes == 3 ? 1600 : 1100;
  const int height = axes == 3 ? 1000 : 800;
  auto terminal = terminal_for(path, width, height);
  if (!terminal) return tl::unexpected(terminal.error());
  auto dir = ScratchDir::make();
  if (!dir) return tl::unexpected(dir.error());
  return std::unique_ptr<MapData>(new MapData(sweep, std::move(path), std::move(*terminal), std::move(*dir)));
}

MapData::MapData(const scenario::Sweep& sweep, std::string path, std::string terminal, ScratchDir dir)
    : sweep_(sweep), path_(std::move(path)), terminal_(std::move(terminal)), dir_(std::move(dir)) {
  data_.open(dir_ / "cells.dat");
}

// One line per cell: the value index on each axis (x, y, panel; 0 when absent), goodput, the
// link ceiling, and 1 when the cell had a stall above the threshold.
void MapData::add(std::uint64_t cell, const sim::Summary& s) {
  auto at = sweep_.coordinates(cell);
  at.resize(3, 0);
  std::uint64_t stalls = 0;
  for (const sim::StallKind k : sim::kStallKinds) stalls += s.stalls.of(k)->count;
  data_ << fmt::format("{} {} {} {:.6f} {:.6f} {}\n", at[0], at[1], at[2], std::max(s.goodput_mib_s, kFloor),
                       s.ceiling_mib_s, stalls > 0 ? 1 : 0);
  max_goodput_ = std::max(max_goodput_, s.ceiling_mib_s);
}

void MapData::script_line(std::ostream& gp) const {
  const auto& x = sweep_.axes()[0];
  const std::string file = gp_quote((dir_ / "cells.dat").string());
  gp << "set xlabel " << gp_quote(x.key) << " noenhanced\n" << tics("x", x);
  gp << fmt::format("set xrange [-0.5:{}]\n", static_cast<double>(x.values.size()) - 0.5);
  gp << "set ylabel 'goodput (MiB/s), log scale'\nset logscale y\nset grid\nset key bottom right\n";
  gp << "plot " << file << " using 1:5 with lines dt 2 lc rgb '#7f7f7f' title 'link ceiling', \\\n"
     << "     " << file << " using 1:4 with linespoints pt 7 ps 0.6 lc rgb '#1f77b4' title 'goodput', \\\n"
     << "     " << file << " using 1:($6 > 0 ? $4 : 1/0) with points pt 2 ps 1.6 lw 2 lc rgb '#d62728'"
     << " title 'stalled (a wait > threshold)'\n";
}

// Cells arrive in any order; a line needs its points in x order, one data block per series
// (`index i`). At most kMaxSeries x the first axis' values: small.
core::Result<void> MapData::write_series() const {
  std::ifstream in(dir_ / "cells.dat");
  std::vector<std::array<std::string, 6>> rows;
  for (std::array<std::string, 6> r; in >> r[0] >> r[1] >> r[2] >> r[3] >> r[4] >> r[5];) rows.push_back(r);
  std::ranges::sort(rows, {}, [](const auto& r) { return std::pair(std::stoul(r[1]), std::stoul(r[0])); });
  std::ofstream out(dir_ / "series.dat");
  std::string series = rows.empty() ? "" : rows.front()[1];
  for (const auto& r : rows) {
    if (r[1] != series) out << "\n\n";  // a new gnuplot data block
    series = r[1];
    out << fmt::format("{} {} {} {} {} {}\n", r[0], r[1], r[2], r[3], r[4], r[5]);
  }
  out.close();
  if (!out) return core::fail("cannot write " + (dir_ / "series.dat").string());
  return {};
}

void MapData::script_series(std::ostream& gp) const {
  const auto& x = sweep_.axes()[0];
  const auto& series = sweep_.axes()[1];
  const std::string file = gp_quote((dir_ / "series.dat").string());
  gp << "set title " << gp_quote(gp_title_ + "  (x marks a stalled cell)") << " noenhanced\n";
  gp << "set xlabel " << gp_quote(x.key) << " noenhanced\n" << tics("x", x);
  gp << fmt::format("set xrange [-0.5:{}]\n", static_cast<double>(x.values.size()) - 0.5);
  gp << "set ylabel 'goodput (MiB/s), log scale'\nset logscale y\nset grid\n";
  gp << "set key outside right top noenhanced title " << gp_quote(short_key(series.key)) << "\n";
  gp << "set xtics rotate by 45 right\n";
  gp << "plot " << file << " using 1:5 with lines dt 2 lc rgb '#7f7f7f' title 'link ceiling'";
  for (std::size_t i = 0; i < series.values.size(); ++i)
    gp << ", \\\n     " << file
       << fmt::format(" index {} using 1:4 with linespoints pt 7 ps 0.6 lw 1.5 lc {} title {}", i, i + 1,
                      gp_quote(series.values[i]));
  gp << ", \\\n     " << file
     << " using ($6 > 0 ? $1 : 1/0):4 with points pt 2 ps 1.6 lw 2 lc rgb '#d62728' title 'stalled'\n";
}

void MapData::script_heatmap(std::ostream& gp) const {
  const auto& x = sweep_.axes()[0];
  const auto& y = sweep_.axes()[1];
  const std::string file = gp_quote((dir_ / "cells.dat").string());
  gp << "set xlabel " << gp_quote(x.key) << " noenhanced\n" << tics("x", x);
  gp << "set ylabel " << gp_quote(y.key) << " noenhanced\n" << tics("y", y);
  gp << fmt::format("set xrange [-0.5:{}]\nset yrange [-0.5:{}]\n", static_cast<double>(x.values.size()) - 0.5,
                    static_cast<double>(y.values.size()) - 0.5);
  gp << "set logscale cb\nset cblabel 'goodput (MiB/s), log scale'\n";
  gp << fmt::format("set cbrange [{}:{:.4f}]\n", kFloor * 10, std::max(max_goodput_, 0.1));
  gp << "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n";
  gp << "set xtics rotate by 45 right\nunset key\n";
  const std::size_t panels = sweep_.axes().size() == 3 ? sweep_.axes()[2].values.size() : 1;
  if (panels > 1) {
    const auto& z = sweep_.axes()[2];
    const std::size_t cols = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(panels))));
    const std::size_t rows = (panels + cols - 1) / cols;
    gp << fmt::format("set multiplot layout {},{} title {} noenhanced\n", rows, cols,
                      gp_quote(gp_title_ + "  (x marks a stalled cell)"));
    for (std::size_t p = 0; p < panels; ++p) {
      gp << "set title " << gp_quote(short_key(z.key) + " = " + z.values[p]) << " noenhanced\n";
      gp << "plot " << file << fmt::format(" using ($3 == {0} ? $1 : 1/0):2:(0.5):(0.5):4", p)
         << " with boxxyerror fc palette fs solid 1.0 noborder, \\\n"
         << "     " << file << fmt::format(" using ($3 == {0} && $6 > 0 ? $1 : 1/0):2", p)
         << " with points pt 2 ps 0.8 lc rgb '#ff0000'\n";
    }
    gp << "unset multiplot\n";
    return;
  }
  gp << "set title " << gp_quote(gp_title_ + "  (x marks a stalled cell)") << " noenhanced\n";
  gp << "plot " << file << " using 1:2:(0.5):(0.5):4 with boxxyerror fc palette fs solid 1.0 noborder, \\\n"
     << "     " << file << " using ($6 > 0 ? $1 : 1/0):2 with points pt 2 ps 1.2 lc rgb '#ff0000'\n";
}

core::Result<void> MapData::render(const std::string& title) {
  data_.close();
  if (!data_) return core::fail("cannot write " + (dir_ / "cells.dat").string());
  gp_title_ = title;
  std::ofstream gp(dir_ / "map.gp");
  gp << terminal_ << "\nset output " << gp_quote(path_) << "\n";
  if (sweep_.axes().size() <= 1) {
    gp << "set title " << gp_quote(title) << " noenhanced\n";
    if (sweep_.axes().empty()) return core::fail("no swept key to draw");
    script_line(gp);
  } else if (sweep_.axes().size() == 2 && sweep_.axes()[1].values.size() <= kMaxSeries) {
    if (auto sorted = write_series(); !sorted) return sorted;
    script_series(gp);
  } else {
    script_heatmap(gp);
  }
  gp.close();
  return run_gnuplot(dir_ / "map.gp", path_);
}

}  // namespace ackstall::report
