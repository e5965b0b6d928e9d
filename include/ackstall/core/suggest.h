// ackstall/core/suggest.h — "did you mean": the closest of a set of names to a mistyped one.
//
// Used for a mistyped command-line flag (tools/ackstall/app.cc) and scenario key
// (scenario/fields.cc), so both suggest by the same rule.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ackstall::core {

// The optimal-string-alignment distance between A and B (insertions, deletions, substitutions
// and swaps of two neighbours count one each).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name in NAMES closest to WORD, if it is close enough to be a typo: at most 2 edits, and
// at most a third of WORD's length; ties go to the first name. nullopt when none is.
std::optional<std::string> closest_name(std::string_view word, std::span<const std::string> names);

// " (did you mean NAME?)" for the closest name, or "" when none is close.
std::string did_you_mean(std::string_view word, std::span<const std::string> names);

}  // namespace ackstall::core
