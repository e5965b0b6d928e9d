// A time-sequence graph of one simulated run (time_sequence_plot.h): data segments as sequence
// vs time, the receiver's cumulative ACK line, and every stall marked as a shaded interval by
// kind.
//
// The sink stores one point per frame (a plot is a trace the user asked for); relative
// sequence numbers start at 0 at the first data byte.
#pragma once

#include <cstdint>
#include <string>

#include "ackstall/core/error.h"
#include "ackstall/sim/trace.h"
#include "ackstall/report/time_sequence_plot.h"

namespace ackstall::report {

class PlotTraceSink final : public sim::TraceSink {
 public:
  void on_frame(const sim::WireFrame& frame) override;
  void on_stall(const sim::StallMarker& stall) override;

  // Writes the data and a gnuplot script to a scratch directory and runs gnuplot.
  core::Result<void> render(const std::string& path, const std::string& title,
                            const PlotWindow& window = {}) const;

  std::size_t data_points() const noexcept { return ts_.data.size(); }
  std::size_t ack_points() const noexcept { return ts_.acks.size(); }

 private:
  TimeSequence ts_;
  bool have_iss_ = false;
  std::uint32_t iss_ = 0;  // sender's initial sequence number
};

}  // namespace ackstall::report
