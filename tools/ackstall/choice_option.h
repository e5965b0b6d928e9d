// A closed set of words for an option (--chunk, --policy, --reader, --ack-mode, ...): a value
// outside it is refused with the set and the closest word, as mistyped flags and scenario keys
// are (core/suggest.h): "'robus' is not one of none, seed, robust, ... (did you mean robust?)".
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "ackstall/core/suggest.h"

namespace ackstall::tools {

inline CLI::Validator one_of(std::vector<std::string> names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, list](std::string& value) -> std::string {
        for (const auto& n : names) {
          if (n == value) return {};
        }
        return "'" + value + "' is not one of " + list + core::did_you_mean(value, names);
      },
      "{" + list + "}");
}

}  // namespace ackstall::tools
