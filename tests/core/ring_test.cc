// core::Ring: a FIFO that grows by doubling and wraps its indices (the simulator's queues).
#include "ackstall/core/ring.h"

#include <gtest/gtest.h>

#include <deque>
#include <utility>

namespace ackstall::core {
namespace {

TEST(Ring, KeepsFifoOrderAcrossGrowthAndWrapAround) {
  Ring<int> r;
  std::deque<int> model;
  int next = 0;
  // Pushes and pops interleaved so that the head moves round the buffer while it grows.
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) {
      r.push_back(next);
      model.push_back(next++);
    }
    for (int i = 0; i < round % 5 && !model.empty(); ++i) {
      ASSERT_EQ(r.front(), model.front());
      r.pop_front();
      model.pop_front();
    }
    ASSERT_EQ(r.size(), model.size());
    for (std::size_t i = 0; i < model.size(); ++i) {
      ASSERT_EQ(r[i], model[i]) << "round " << round << " index " << i;
    }
    if (!model.empty()) {
      ASSERT_EQ(r.back(), model.back());
    }
  }
}

TEST(Ring, AnAppendedSlotIsTheNewBack) {
  Ring<int> r;
  for (int i = 0; i < 40; ++i) {
    r.append_slot() = i;
    ASSERT_EQ(r.back(), i);
    if (i % 3 == 0) {
      r.pop_front();
    }
  }
  EXPECT_EQ(r.size(), 40u - 14u);
  EXPECT_EQ(r.front(), 14);
  r.clear();
  EXPECT_TRUE(r.empty());
}

TEST(Ring, AMovedFromRingIsEmptyAndUsable) {
  Ring<int> a;
  for (int i = 0; i < 9; ++i) a.push_back(i);
  Ring<int> b(std::move(a));
  EXPECT_EQ(b.size(), 9u);
  EXPECT_EQ(b.back(), 8);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  for (int i = 0; i < 20; ++i) a.push_back(i);  // grows from nothing, as a new ring
  EXPECT_EQ(a.size(), 20u);
  EXPECT_EQ(a.front(), 0);
  EXPECT_EQ(a.back(), 19);
  Ring<int> c;
  c = std::move(b);
  EXPECT_EQ(c[3], 3);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
  b.append_slot() = 7;
  EXPECT_EQ(b.front(), 7);
}

}  // namespace
}  // namespace ackstall::core
