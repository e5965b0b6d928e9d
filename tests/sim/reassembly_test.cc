// sim/reassembly.h: the out-of-order queue of a receiver.
#include "ackstall/sim/reassembly.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

constexpr std::int64_t kNoLimit = 1 << 30;

TEST(Reassembly, HoleFilledHandsOverEverythingContiguous) {
  ReassemblyQueue q;
  EXPECT_TRUE(q.empty());
  q.add(2001, 3001, false, kNoLimit);  // 1001..2001 lost
  q.add(3001, 4001, false, kNoLimit);  // adjacent: merged
  q.add(5001, 6001, false, kNoLimit);  // a second hole at 4001
  EXPECT_FALSE(q.empty());
  EXPECT_EQ(q.queued_bytes(), 3000);
  EXPECT_EQ(q.take_contiguous(1001, kNoLimit), 1001);  // the hole is still there
  EXPECT_EQ(q.take_contiguous(2001, kNoLimit), 4001);  // filled: up to the next hole
  EXPECT_EQ(q.queued_bytes(), 1000);
  EXPECT_EQ(q.take_contiguous(5001, kNoLimit), 6001);
  EXPECT_TRUE(q.empty());
}

TEST(Reassembly, OverlapsAndDuplicatesMerge) {
  ReassemblyQueue q;
  q.add(100, 200, false, kNoLimit);
  q.add(300, 400, false, kNoLimit);
  q.add(150, 350, false, kNoLimit);  // bridges both
  EXPECT_EQ(q.queued_bytes(), 300);
  q.add(120, 130, false, kNoLimit);  // inside: nothing new
  EXPECT_EQ(q.queued_bytes(), 300);
  // A go-back-N retransmission already past part of the queue.
  EXPECT_EQ(q.take_contiguous(250, kNoLimit), 400);
  EXPECT_TRUE(q.empty());
}

TEST(Reassembly, WindowLimitDropsTheRest) {
  ReassemblyQueue q;
  q.add(2000, 5000, false, 4000);  // beyond the buffer: cut at 4000
  EXPECT_EQ(q.queued_bytes(), 2000);
  q.add(6000, 7000, false, 9000);
  EXPECT_EQ(q.take_contiguous(2000, 3000), 3000);  // the reader has not made room: the rest goes
  EXPECT_TRUE(q.empty());
}

TEST(Reassembly, FinFollowsTheLastByte) {
  ReassemblyQueue q;
  q.add(5000, 6000, true, kNoLimit);
  EXPECT_FALSE(q.fin_at(5000));
  EXPECT_EQ(q.take_contiguous(5000, kNoLimit), 6000);
  EXPECT_TRUE(q.fin_at(6000));
  q.clear_fin();
  EXPECT_TRUE(q.empty());
  // A FIN whose data was cut by the window is not kept.
  q.add(5000, 6000, true, 5500);
  EXPECT_EQ(q.take_contiguous(5000, kNoLimit), 5500);
  EXPECT_FALSE(q.fin_at(5500));
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace ackstall::sim
