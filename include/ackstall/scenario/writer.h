// ackstall/scenario/writer.h — a scenario file written from a typed configuration.
//
// A program that emits scenarios (scan --emit-scenario) names the profiles it starts from, sets
// the fields of a sim::ExperimentConfig and marks the ones it carries; the writer spells them
// through the key table (fields.h: field_value, field_at), the table the loader reads with, so a
// key is declared once and a program names no key by its text. The file holds the profiles,
// every key whose value differs from what the profiles give, and every carried key (a figure the
// reader should see even where a profile gives the same value): load_scenario_file reads it back
// to the same configuration, every key of fields() equal (tests/scenario/writer_test.cc).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/scenario/fields.h"
#include "ackstall/sim/config.h"

namespace ackstall::scenario {

// The [scenario] table (scenario.h: Scenario's fields of the same names); empty ones are not written.
struct ScenarioMetadata {
  std::string name, description, seed_row, calibration;
  std::optional<double> seed_mib_s;
};

// The profiles a scenario starts from (profiles.h); an empty name: config.h's defaults.
struct ScenarioProfiles {
  std::string sender, receiver, link;
};

class ScenarioWriter {
 public:
  // config() starts as the loader would make it from PROFILES alone; fails with
  // "<key>: unknown profile ..." for a name profiles.h does not know.
  static core::Result<ScenarioWriter> over(ScenarioProfiles profiles);

  // A "# " line at the top of the file.
  void comment(std::string line) { comments_.push_back(std::move(line)); }
  ScenarioMetadata& metadata() noexcept { return metadata_; }
  // The configuration the file describes: set its fields.
  sim::ExperimentConfig& config() noexcept { return config_; }
  const sim::ExperimentConfig& config() const noexcept { return config_; }
  // Writes the key of MEMBER, a member of config() (carry(w.config().sender.mss)), even where
  // it equals the profiles' value. A member no key sets (fields.h: field_at) fails toml().
  template <class T>
  void carry(const T& member) {
    carry_at(&member, typeid(T));
  }
  // The file: the comments, then one TOML table per key prefix. Fails when a carried member has
  // no key, or config() is one the loader would refuse (sim::validate), with its message.
  core::Result<std::string> toml() const;

 private:
  ScenarioWriter() = default;
  void carry_at(const void* member, std::type_index type);
  std::vector<std::string> comments_;
  ScenarioMetadata metadata_;
  ScenarioProfiles profiles_;
  sim::ExperimentConfig base_;    // what the profiles give
  sim::ExperimentConfig config_;  // what the file describes
  std::set<std::string, std::less<>> carried_;
  std::size_t unknown_members_ = 0;  // carried members no key sets
};

}  // namespace ackstall::scenario
