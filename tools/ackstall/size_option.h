// Command-line options that take a size in core's one grammar (core/units.h: 8192, "8k", "64M"),
// checked against a range at parse time; the error names the flag and the grammar.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "ackstall/core/units.h"

namespace ackstall::tools {

// Socket buffers (SO_SNDBUF, SO_RCVBUF) are C ints: one range for every command.
inline constexpr std::int64_t kMaxSocketBuffer = std::numeric_limits<int>::max();

// A CLI11 validator for a size in [LO, HI] bytes.
inline CLI::Validator size_in(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const auto v = core::parse_size(text);
        if (!v) return v.error().message();
        if (*v < lo || *v > hi)
          return "size " + text + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return {};
      },
      "SIZE");
}

// Binds a size option (NAME) to TARGET, in [LO, HI] bytes.
template <class Int>
CLI::Option* add_size_option(CLI::App& cmd, const std::string& name, Int& target, const std::string& description,
                             std::uint64_t lo, std::uint64_t hi) {
  return cmd
      .add_option_function<std::string>(
          name, [&target](const std::string& v) { target = static_cast<Int>(*core::parse_size(v)); },
          description + " (bytes, or k/K/KiB, M, G: 8k)")
      ->check(size_in(lo, hi));
}

}  // namespace ackstall::tools
