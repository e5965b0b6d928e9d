// An option read into a 64-bit unsigned integer (a count, a seed): CLI11 converts "-1" into such a
// variable by wrapping it round to 2^64 - 1 (strtoull's rule, C17 7.22.1.4), which a Range up to
// the type's maximum then accepts. not_negative() refuses a leading '-' before the conversion.
// (Narrower unsigned types need no such check: the wrapped value is out of their range.)
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace ackstall::tools {

// WHAT names the value in the message ("a seed"); NAME, if any, is shown in the help ("SEED").
inline CLI::Validator not_negative(const std::string& what, const std::string& name = {}) {
  return CLI::Validator(
      [what](const std::string& v) {
        return v.starts_with('-') ? what + " is a non-negative integer, got '" + v + "'" : std::string();
      },
      name);
}

}  // namespace ackstall::tools
