// run_experiment: wires engine, link, TCP endpoints and applications together.
#include "ackstall/sim/experiment.h"

#include <stdexcept>

namespace ackstall::sim {

Summary run_experiment(const ExperimentConfig& cfg, TraceSink* /*trace*/) {
  if (auto err = validate(cfg)) throw std::invalid_argument(*err);
  Summary s;  // placeholder until the engine lands (API first, issue 3 step 1)
  s.bytes_requested = cfg.app.transmitter.writes * cfg.app.transmitter.write_len;
  return s;
}

}  // namespace ackstall::sim
