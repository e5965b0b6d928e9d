// A simulated run's time-sequence graph is ackstall/report/sim_plot.h. This name stays for
// cmd_sim.cc (changed on another branch this round); include the library's header instead, then
// this file goes.
#pragma once

#include "ackstall/report/sim_plot.h"

namespace ackstall::tools {
using report::parse_plot_window;
using report::PlotTraceSink;
using report::PlotWindow;
}  // namespace ackstall::tools
