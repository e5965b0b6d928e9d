#include "ackstall/core/recent_spacings.h"

#include <gtest/gtest.h>

namespace ackstall::core {
namespace {

TEST(RecentSpacings, NoMedianBeforeTwo) {
  RecentSpacings r;
  EXPECT_FALSE(r.median());
  r.add(100);
  EXPECT_FALSE(r.median());
  r.add(300);
  EXPECT_EQ(r.median(), 300);  // of an even count, the upper middle one
}

TEST(RecentSpacings, TheMedianOfTheLastEightOnly) {
  RecentSpacings r;
  for (int i = 0; i < 8; ++i) r.add(1'000'000);  // eight old spacings of 1 ms
  for (int i = 0; i < 4; ++i) r.add(10);         // four new ones push four of them out
  EXPECT_EQ(r.median(), 1'000'000);              // 4 of 10 ns, 4 of 1 ms: the upper middle is 1 ms
  r.add(10);
  EXPECT_EQ(r.median(), 10);  // 5 of 10 ns, 3 of 1 ms
}

}  // namespace
}  // namespace ackstall::core
