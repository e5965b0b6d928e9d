// ackstall/core/plural.h — a count and its noun, singular for 1: "1 stall", "2 stalls",
// "1 segment", "0 flows". One helper for every report (sim, ttcp, plan, probe, scan).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ackstall::core {

// "N NOUN" with NOUN as given for N == 1, else PLURAL (default: NOUN + "s").
inline std::string plural(std::uint64_t n, std::string_view noun, std::string_view plural_noun = {}) {
  std::string out = std::to_string(n) + ' ';
  if (n == 1) return out.append(noun);
  if (!plural_noun.empty()) return out.append(plural_noun);
  return out.append(noun).append("s");
}

}  // namespace ackstall::core
