#include "ackstall/core/suggest.h"

#include <algorithm>
#include <vector>

namespace ackstall::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Rows i-2, i-1 and i of the (|a|+1) x (|b|+1) table.
  std::vector<std::size_t> two(b.size() + 1), one(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) one[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = one[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({one[j] + 1, cur[j - 1] + 1, subst});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], two[j - 2] + 1);
    }
    std::swap(two, one);
    std::swap(one, cur);
  }
  return one[b.size()];
}

std::optional<std::string> closest_name(std::string_view word, std::span<const std::string> names) {
  const std::size_t limit = std::min<std::size_t>(2, std::max<std::size_t>(1, word.size() / 3));
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const std::string& name : names) {
    const std::size_t d = edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> names) {
  const auto name = closest_name(word, names);
  return name ? " (did you mean " + *name + "?)" : std::string();
}

}  // namespace ackstall::core
