// run_experiment (experiment.h): validate, then run the wiring (simulation.h).
#include "ackstall/sim/experiment.h"

#include "simulation.h"

namespace ackstall::sim {

const StallTotal* StallTotals::of(StallKind kind) const noexcept {
  switch (kind) {
    case StallKind::delayed_ack: return &delayed_ack;
    case StallKind::nagle_hold: return &nagle_hold;
    case StallKind::quota_wait: return &quota_wait;
    case StallKind::wakeup: return &wakeup;
    case StallKind::select_teardown: return &select_teardown;
    default: return nullptr;  // seen by the scanner only (core::StallObserver)
  }
}

core::Result<Summary> run_experiment(const ExperimentConfig& cfg, TraceSink* trace) {
  if (auto ok = validate(cfg); !ok) return tl::unexpected(ok.error());
  return simulate(cfg, trace, nullptr);
}

}  // namespace ackstall::sim
