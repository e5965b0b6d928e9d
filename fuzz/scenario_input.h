// The fuzz targets' scenario input: the bytes are a scenario file (TOML); a first line starting
// "#set " is also passed as one --set argument. Shared by fuzz_scenario and fuzz_simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/scenario/scenario.h"

inline auto parse_fuzz_scenario(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> sets;
  if (text.starts_with("#set ")) {
    const auto nl = text.find('\n');
    sets.emplace_back(text.substr(5, nl == std::string_view::npos ? text.npos : nl - 5));
  }
  // Every include reads the input itself, so that an included file's parsing and checks are fuzzed
  // too (it holds keys only: an input with [scenario] include = ... is refused as an include).
  const ackstall::scenario::IncludeReader self = [text](const std::string&) -> ackstall::core::Result<std::string> {
    return std::string(text);
  };
  return ackstall::scenario::parse_scenario(text, "fuzz.toml", sets, self);
}
