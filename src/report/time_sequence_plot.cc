#include "ackstall/report/time_sequence_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

#include "ackstall/core/units.h"
#include "ackstall/report/gnuplot.h"

namespace ackstall::report {
namespace {

// The colour of a lane; a kind beyond the table is still drawn, in grey.
const char* colour_of(std::size_t lane) {
  static constexpr const char* kColours[] = {"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#e377c2"};
  return lane < std::size(kColours) ? kColours[lane] : "#7f7f7f";
}

}  // namespace

core::Result<PlotWindow> parse_plot_window(std::string_view text) {
  const auto dots = text.find("..");
  const auto bad = [&] {
    return core::fail("--plot-window " + std::string(text) + ": expected A..B, seconds or durations such as 0.5..1 or 200ms..1s");
  };
  if (dots == std::string_view::npos) return bad();
  // A plain number is seconds, the plot's axis ("1..2" = "1s..2s").
  const auto ns = [](std::string_view t) {
    const bool plain = !t.empty() && t.find_first_not_of("0123456789.") == std::string_view::npos;
    return core::parse_duration_ns(plain ? std::string(t) + "s" : std::string(t));
  };
  PlotWindow w;
  if (dots > 0) {
    const auto a = ns(text.substr(0, dots));
    if (!a) return bad();
    w.from = std::chrono::nanoseconds(*a);
  }
  if (dots + 2 < text.size()) {
    const auto b = ns(text.substr(dots + 2));
    if (!b || *b <= w.from.count()) return bad();
    w.to = std::chrono::nanoseconds(*b);
  }
  return w;
}

core::Result<void> render_time_sequence(const TimeSequence& ts, const std::string& path, const std::string& title,
                                        const PlotWindow& window) {
  auto terminal = terminal_for(path, 1400, 900);
  if (!terminal) return tl::unexpected(terminal.error());
  auto scratch = ScratchDir::make();
  if (!scratch) return tl::unexpected(scratch.error());
  const std::filesystem::path& dir = scratch->path();
  {
    std::ofstream data(dir / "data.dat"), acks(dir / "acks.dat");
    for (const auto& p : ts.data) data << fmt::format("{:.9f} {:.0f}\n", p.t, p.seq);
    for (const auto& p : ts.acks) acks << fmt::format("{:.9f} {:.0f}\n", p.t, p.seq);
    if (ts.data.empty()) data << "0 0\n";
    if (ts.acks.empty()) acks << "0 0\n";
    std::ofstream edge(dir / "window.dat");
    for (const auto& p : ts.window) edge << fmt::format("{:.9f} {:.0f}\n", p.t, p.seq);
  }
  const std::size_t lanes = std::max<std::size_t>(ts.lanes.size(), 1);
  // Two panels sharing the time axis: the time-sequence graph on top, and one lane per stall
  // kind below it (stalls of different kinds overlap in time, so they get separate lanes).
  std::ofstream gp(dir / "plot.gp");
  gp << *terminal << "\n";
  gp << "set termoption noenhanced\n";  // names such as delayed_ack are text, not subscripts
  gp << "set output " << gp_quote(path) << "\n";
  gp << "set multiplot title " << gp_quote(title + " - time-sequence graph") << " noenhanced\n";
  double t_end = 0;
  for (const auto& p : ts.data) t_end = std::max(t_end, p.t);
  for (const auto& p : ts.acks) t_end = std::max(t_end, p.t);
  for (const auto& st : ts.stalls) t_end = std::max(t_end, st.end);
  const double from = static_cast<double>(window.from.count()) / 1e9;
  const double to = window.to ? std::chrono::duration<double>(*window.to).count() : (t_end > 0 ? t_end * 1.01 : 1.0);
  gp << fmt::format("set xrange [{:.9f}:{:.9f}]\n", from, to);
  gp << "set lmargin 16\nset rmargin 4\n";  // room for the longest lane name (receiver_window)
  gp << "set origin 0,0.30\nset size 1,0.66\nset key top left\nset format x ''\n";
  gp << "set ylabel 'relative sequence number (bytes)'\n";
  if (!ts.window.empty()) {
    // The window's edge may run far above the data (a large window, a trickle): the sequence axis
    // follows the data and ACKs shown, with a quarter of their span above for the edge.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto* series : {&ts.data, &ts.acks}) {
      for (const auto& p : *series) {
        if (p.t < from || p.t > to) continue;
        lo = std::min(lo, p.seq);
        hi = std::max(hi, p.seq);
      }
    }
    if (lo < hi) gp << fmt::format("set yrange [{:.0f}:{:.0f}]\n", std::max(0.0, lo - 0.02 * (hi - lo)), hi + 0.25 * (hi - lo));
  }
  gp << "plot " << gp_quote((dir / "data.dat").string())
     << " using 1:2 with points pt 7 ps 0.4 lc rgb '#1f77b4' title 'data segment (end seq)', \\\n"
     << "     " << gp_quote((dir / "acks.dat").string())
     << " using 1:2 with steps lw 1.5 lc rgb '#2ca02c' title 'cumulative ACK'";
  if (!ts.window.empty()) {
    gp << ", \\\n     " << gp_quote((dir / "window.dat").string())
       << " using 1:2 with steps lw 1 lc rgb '#9467bd' title 'ACK + offered window'";
  }
  gp << "\n";
  gp << "set origin 0,0.02\nset size 1,0.30\nset format x '%g'\nset xlabel 'time (s)'\n";
  gp << "set ylabel 'stalls'\nset yrange [0:" << lanes << "]\nunset key\nset ytics (";
  for (std::size_t k = 0; k < ts.lanes.size(); ++k)
    gp << (k ? ", " : "") << gp_quote(ts.lanes[k]) << " " << static_cast<double>(k) + 0.5;
  gp << ")\nset grid ytics\nset style fill solid 1.0 noborder\n";
  int object = 1;
  for (const auto& st : ts.stalls) {
    const double k = static_cast<double>(st.lane);
    gp << fmt::format("set object {} rect from {:.9f},{} to {:.9f},{} fc rgb '{}' fs solid 1.0 noborder\n", object++,
                      st.begin, k + 0.15, st.end, k + 0.85, colour_of(st.lane));
    if (object > 50000) break;  // gnuplot slows down badly past this many objects
  }
  gp << "plot NaN notitle\nunset multiplot\n";
  gp.close();
  return run_gnuplot(dir / "plot.gp", path);
}

}  // namespace ackstall::report
