// libFuzzer target: whole simulator runs. The bytes are a scenario file (as fuzz_scenario, with
// an optional first line "#set key=value"); a scenario that loads is shortened to a few small
// writes and run. A run must end (libFuzzer's -timeout catches a simulator that does not: the
// zero-interval persist loop of 2026-12-04 was such a case), deliver no more than was
// requested, and count every byte it claims complete. Never a crash or UB.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"
#include "scenario_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto s = parse_fuzz_scenario(data, size);
  if (!s) return 0;
  ackstall::sim::ExperimentConfig cfg = s->config;
  // Bounded work per input: the simulator's cost is in events, and a few small writes keep a
  // legitimate run far below the timeout however slow its link or reader.
  auto& tx = cfg.app.transmitter;
  tx.writes = std::clamp<std::int64_t>(tx.writes, 1, 24);
  tx.write_len = std::clamp<std::int64_t>(tx.write_len, 1, 4096);
  tx.duration = ackstall::sim::Nanos::zero();
  if (!ackstall::sim::validate(cfg)) return 0;  // the clamps may break a cross-key rule
  const auto r = ackstall::sim::run_experiment(cfg);
  if (!r) return 0;  // a config the simulator refuses with an error
  if (r->bytes_delivered > r->bytes_requested) std::abort();
  if (r->completed && r->bytes_delivered != r->bytes_requested) std::abort();
  return 0;
}
