// A time-sequence graph of one simulated run (the classic tcptrace view): data segments as
// sequence vs time, the receiver's cumulative ACK line, and every stall marked as a shaded
// interval by kind. Rendered by gnuplot (Debian gnuplot-nox) as PNG, SVG or PDF by the file's
// extension, optionally over a time window only.
//
// The sink stores one point per frame (a plot is a trace the user asked for); relative
// sequence numbers start at 0 at the first data byte.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include "ackstall/core/error.h"
#include <string>
#include <vector>

#include "ackstall/sim/trace.h"

namespace ackstall::tools {

// The time axis shown: FROM to TO (nullopt: the end of the run).
struct PlotWindow {
  std::chrono::nanoseconds from{0};
  std::optional<std::int64_t> to;  // ns
};
// "A..B" in core's duration grammar ("0.5s..1s", "200ms..", "..2s").
core::Result<PlotWindow> parse_plot_window(std::string_view text);

class PlotTraceSink final : public sim::TraceSink {
 public:
  void on_frame(const sim::WireFrame& frame) override;
  void on_stall(const sim::StallMarker& stall) override;

  // Writes the data and a gnuplot script to a scratch directory and runs gnuplot.
  core::Result<void> render(const std::string& path, const std::string& title,
                            const PlotWindow& window = {}) const;

  std::size_t data_points() const noexcept { return data_.size(); }
  std::size_t ack_points() const noexcept { return acks_.size(); }

 private:
  struct Point {
    double t;
    double seq;
  };
  std::vector<Point> data_, acks_;
  std::vector<sim::StallMarker> stalls_;
  bool have_iss_ = false;
  std::uint32_t iss_ = 0;  // sender's initial sequence number
};

}  // namespace ackstall::tools
