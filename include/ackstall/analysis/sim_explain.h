// `sim` explains itself: the dominant stall of a run and its mechanism in one sentence, derived
// from the run's counters and its configuration (which send is cut how, which segment is left
// alone, which timer releases it). docs/STACKS.md holds the rules the sentences name.
#pragma once

#include <string>

#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

namespace ackstall::analysis {

std::string explain(const sim::ExperimentConfig& cfg, const sim::Summary& s);

}  // namespace ackstall::analysis
