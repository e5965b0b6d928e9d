// run_ordered: results delivered in order whatever order the workers finish in; a stop ends it.
#include "ackstall/scenario/runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ackstall::scenario {
namespace {

TEST(RunOrdered, DeliversEveryResultInOrder) {
  std::uint64_t expected = 0;
  run_ordered<std::uint64_t>(
      500, 4,
      [](std::uint64_t k) {
        // Later cells finish first now and then: the order is the runner's, not the workers'.
        if (k % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        return k * k;
      },
      [&](std::uint64_t k, std::uint64_t&& r) {
        EXPECT_EQ(k, expected);
        EXPECT_EQ(r, k * k);
        ++expected;
        return true;
      });
  EXPECT_EQ(expected, 500u);
}

TEST(RunOrdered, AStopStartsNoFurtherCellAndWorkersStayWithinTheirWindow) {
  std::atomic<std::uint64_t> started{0};
  std::uint64_t seen = 0;
  run_ordered<int>(
      10'000, 3,
      [&](std::uint64_t) {
        ++started;
        return 0;
      },
      [&](std::uint64_t k, int&&) {
        seen = k + 1;
        return k < 9;  // stop after the tenth
      });
  EXPECT_EQ(seen, 10u);
  // At most 4 x 3 cells beyond the last delivered, plus those already taken by the 3 workers.
  EXPECT_LE(started.load(), 10u + 12u + 3u);
}

TEST(RunOrdered, NoCellsNoCalls) {
  bool called = false;
  run_ordered<int>(
      0, 4, [&](std::uint64_t) { called = true; return 0; },
      [&](std::uint64_t, int&&) { called = true; return true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace ackstall::scenario
