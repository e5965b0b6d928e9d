// Rendering simulator results: one scenario as text or JSON, many as a side-by-side table.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <optional>
#include <span>
#include <string>

#include "ackstall/pcap/diagnosis.h"
#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

namespace ackstall::tools {

struct SimRun {
  std::string source;  // scenario file
  scenario::Scenario scenario;
  sim::Summary summary;
  double wall_seconds = 0;
  // Where the time went, in core's causes (analysis/sim_causes.h), largest first; single runs only.
  std::vector<pcap::CauseShare> causes;
  // --causes check: "" when the simulator's and the scanner's accounts agree, else the first
  // disagreement (analysis::compare_causes).
  std::optional<std::string> causes_check;
};

void print_summary(std::ostream& out, const SimRun& run);
// The summary's own fields (goodput, stalls by kind, counters; no wall time: deterministic).
nlohmann::json summary_fields(const sim::Summary& s);
nlohmann::json summary_json(const SimRun& run);
const sim::StallTotal& stall_total(const sim::StallTotals& t, sim::StallKind kind);
double total_time(const sim::StallTotals& t);  // seconds, every kind
// "delayed-ack 2.000 s (10x); nagle-hold 0.400 s (2x)" (kinds with a count), or "none".
std::string stall_brief(const sim::StallTotals& t);
// The seed's table: row, seed figure, simulated figure, ratio, dominant stall.
void print_table(std::ostream& out, std::span<const SimRun> runs);

}  // namespace ackstall::tools
