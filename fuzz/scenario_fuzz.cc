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

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The first line, if it starts with "#set ", is also used as one --set argument.
  std::vector<std::string> sets;
  if (text.starts_with("#set ")) {
    const auto nl = text.find('\n');
    sets.emplace_back(text.substr(5, nl == std::string_view::npos ? text.npos : nl - 5));
  }
  const auto s = ackstall::scenario::parse_scenario(text, "fuzz.toml", sets);
  if (s) {
    if (!ackstall::sim::validate(s->config)) std::abort();  // loader let an invalid config through
  } else {
    const std::string e = s.error().message();
    if (e.empty() || e.find('\n') != std::string::npos) std::abort();  // not one line
    if (!e.starts_with("fuzz.toml: ") && !e.starts_with("--set ")) std::abort();
  }
  return 0;
}
