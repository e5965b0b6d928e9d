// "did you mean": edit distance and the closest name.
#include "ackstall/core/suggest.h"

#include "ackstall/core/plural.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ackstall::core {
namespace {

TEST(Suggest, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("--stall-threshold", "--stall-treshold"), 1u);
  EXPECT_EQ(edit_distance("--chunk", "--chnuk"), 1u);
}

TEST(Suggest, ClosestNameOnlyWhenItLooksLikeATypo) {
  const std::vector<std::string> names = {"--chunk", "--json", "--stall-threshold", "--time"};
  EXPECT_EQ(closest_name("--chnuk", names), "--chunk");
  EXPECT_EQ(closest_name("--stall-treshold", names), "--stall-threshold");
  EXPECT_EQ(closest_name("--jsno", names), "--json");
  EXPECT_EQ(closest_name("--completely-else", names), std::nullopt);
  EXPECT_EQ(closest_name("x", names), std::nullopt);
  EXPECT_EQ(did_you_mean("--tme", names), " (did you mean --time?)");
  EXPECT_EQ(did_you_mean("--nothing-like-it", names), "");
}

TEST(Plural, OneIsSingular) {
  EXPECT_EQ(plural(1, "stall"), "1 stall");
  EXPECT_EQ(plural(0, "flow"), "0 flows");
  EXPECT_EQ(plural(2, "segment"), "2 segments");
  EXPECT_EQ(plural(1, "piece", "pieces"), "1 piece");
  EXPECT_EQ(plural(3, "match", "matches"), "3 matches");
}

}  // namespace
}  // namespace ackstall::core
