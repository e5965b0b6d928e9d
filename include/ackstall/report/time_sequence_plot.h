// The time-sequence graph (the classic tcptrace view) that `sim --plot` and `scan --plot` draw:
// data segments as sequence vs time, the receiver's cumulative ACK line (and its window's edge),
// and every stall as a
// shaded interval in its kind's lane below. Rendered by gnuplot (Debian gnuplot-nox) as PNG,
// SVG or PDF by the file's extension, optionally over a time window only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/core/error.h"

namespace ackstall::report {

// The time axis shown: FROM to TO (nullopt: the end of the run).
struct PlotWindow {
  std::chrono::nanoseconds from{0};
  std::optional<std::chrono::nanoseconds> to;
};
// "A..B" in core's duration grammar ("0.5s..1s", "200ms..", "..2s"); a plain number is seconds
// ("1..2").
core::Result<PlotWindow> parse_plot_window(std::string_view text);

struct TimeSequence {
  struct Point {
    double t;    // seconds
    double seq;  // relative sequence number (bytes)
  };
  struct Interval {
    double begin, end;  // seconds
    std::size_t lane;   // index into `lanes`
  };
  std::vector<Point> data;  // a data segment's end sequence number
  std::vector<Point> acks;  // the cumulative ACK
  // The right edge of the offered window (ACK + window; tcptrace's "receive window" line):
  // drawn when not empty.
  std::vector<Point> window;
  std::vector<Interval> stalls;
  std::vector<std::string> lanes;  // the stall kinds' names, one lane each
};

// Writes the data and a gnuplot script to a scratch directory and runs gnuplot.
core::Result<void> render_time_sequence(const TimeSequence& ts, const std::string& path, const std::string& title,
                                        const PlotWindow& window = {});

}  // namespace ackstall::report
