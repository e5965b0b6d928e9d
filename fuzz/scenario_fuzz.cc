// libFuzzer target: the scenario loader (TOML text -> ExperimentConfig) and `--set` parsing.
// Any input must give a Scenario that passes sim::validate() or one error line naming the
// source; never a crash, an exception escaping, or UB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/scenario/scenario.h"
#include "scenario_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto s = parse_fuzz_scenario(data, size);  // a first "#set key=value" line is a --set
  if (s) {
    if (!ackstall::sim::validate(s->config)) std::abort();  // loader let an invalid config through
  } else {
    const std::string e = s.error().message();
    if (e.empty() || e.find('\n') != std::string::npos) std::abort();  // not one line
    if (!e.starts_with("fuzz.toml: ") && !e.starts_with("--set ")) std::abort();
  }
  return 0;
}
