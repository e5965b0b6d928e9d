// run_experiment (experiment.h): validate, then run the wiring (simulation.h).
#include "ackstall/sim/experiment.h"

#include "simulation.h"

namespace ackstall::sim {

core::Result<Summary> run_experiment(const ExperimentConfig& cfg, TraceSink* trace) {
  if (auto ok = validate(cfg); !ok) return tl::unexpected(ok.error());
  return simulate(cfg, trace, nullptr);
}

}  // namespace ackstall::sim
