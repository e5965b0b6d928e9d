// --stall-threshold DURATION: the one spelling of the stall threshold on every command (sim,
// ttcp, and lab run's ttcp flags), in core's duration grammar ("20ms", "0.1s"); default
// core::kDefaultStallThreshold. A command's old spelling in plain milliseconds (ttcp's
// --stall-ms, scan's --threshold-ms) stays as an alias.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "ackstall/core/units.h"

namespace ackstall::tools {

// The default as help text prints it ("20ms").
inline std::string default_stall_threshold_text() {
  return core::format_duration_ns(core::kDefaultStallThreshold.count());
}

// Registers --stall-threshold and, unless LEGACY_MS_FLAG is empty, its alias in ms; both call
// SET with the threshold (the one conversion from text), checked against [0, MAX_NS] at parse time.
inline void add_stall_threshold_option(CLI::App& cmd, std::function<void(core::StallThreshold)> set, const std::string& what,
                                       const std::string& legacy_ms_flag = {},
                                       std::int64_t max_ns = std::int64_t{86400} * 1'000'000'000) {
  const auto in_range = [max_ns](std::int64_t ns) {
    return ns <= max_ns ? std::string()
                        : "more than " + core::format_duration_ns(max_ns) + " (the largest threshold)";
  };
  auto* opt = cmd.add_option_function<std::string>(
                     "--stall-threshold",
                     [set](const std::string& v) { set(core::StallThreshold(*core::parse_duration_ns(v))); },
                     what + " (a duration: 20ms, 0.1s; default " + default_stall_threshold_text() + ")")
                  ->check(CLI::Validator(
                      [in_range](std::string& text) -> std::string {
                        const auto ns = core::parse_duration_ns(text);
                        return ns ? in_range(*ns) : ns.error().message();
                      },
                      "DURATION"));
  if (legacy_ms_flag.empty()) return;
  auto* legacy = cmd.add_option_function<double>(
                        legacy_ms_flag, [set](double ms) { set(core::StallThreshold(static_cast<std::int64_t>(ms * 1e6 + 0.5))); },
                        "the same in ms (old spelling of --stall-threshold)")
                     ->check(CLI::Range(0.0, static_cast<double>(max_ns) / 1e6));
  opt->excludes(legacy);
}

}  // namespace ackstall::tools
