// The gnuplot runner is ackstall/report/gnuplot.h. This name stays for cmd_sim.cc (changed on
// another branch this round); include the library's header instead, then this file goes.
#pragma once

#include "ackstall/report/gnuplot.h"

namespace ackstall::tools {
using report::terminal_for;
}  // namespace ackstall::tools
