// Rendering simulator results: one scenario as text or JSON, many as a side-by-side table.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <span>
#include <string>

#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

namespace ackstall::tools {

struct SimRun {
  std::string source;  // scenario file
  scenario::Scenario scenario;
  sim::Summary summary;
  double wall_seconds = 0;
};

void print_summary(std::ostream& out, const SimRun& run);
nlohmann::json summary_json(const SimRun& run);
// The seed's table: row, seed figure, simulated figure, ratio, dominant stall.
void print_table(std::ostream& out, std::span<const SimRun> runs);

}  // namespace ackstall::tools
