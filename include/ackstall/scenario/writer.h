// ackstall/scenario/writer.h — a scenario file written through the key table.
//
// Every key set is checked against fields.h (set_field on a scratch configuration: the key and
// its value's type and grammar), profiles.h (sender.profile, receiver.profile, link.preset) or
// the [scenario] metadata keys, so that a program emitting scenarios (scan --emit-scenario)
// breaks at its first run, in a test, when a key is renamed, instead of writing a file the
// loader refuses. The text is TOML that load_scenario_file reads back to the same values.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/scenario/fields.h"
#include "ackstall/sim/config.h"

namespace ackstall::scenario {

class ScenarioWriter {
 public:
  // A "# " line at the top of the file.
  void comment(std::string line) { comments_.push_back(std::move(line)); }
  // One key ("receiver.ack.delack_timeout", "sender.profile", "scenario.name") and its value;
  // fails with "<key>: <problem>" as the loader would.
  core::Result<void> set(std::string_view key, Value value);
  // The file: the comments, then one TOML table per key prefix.
  std::string toml() const;

 private:
  std::vector<std::string> comments_;
  std::vector<std::pair<std::string, Value>> keys_;
  sim::ExperimentConfig scratch_;
};

}  // namespace ackstall::scenario
