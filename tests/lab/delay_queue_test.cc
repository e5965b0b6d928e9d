// The delay line's queue: every frame leaves exactly its delay after it arrived, in arrival
// order, byte for byte; the bound drops and counts.
#include "ackstall/lab/delay_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ackstall::lab {
namespace {

std::vector<std::byte> frame(std::string_view s) {
  std::vector<std::byte> b;
  for (char c : s) b.push_back(static_cast<std::byte>(c));
  return b;
}

std::vector<std::string> release(DelayQueue& q, std::int64_t now) {
  std::vector<std::string> out;
  q.release(now, [&](std::span<const std::byte> f) { out.emplace_back(reinterpret_cast<const char*>(f.data()), f.size()); });
  return out;
}

TEST(LabDelayQueue, EachFrameLeavesItsDelayAfterItArrived) {
  DelayQueue q(15'000'000, 1 << 20);
  EXPECT_FALSE(q.next_due());
  ASSERT_TRUE(q.push(100, frame("syn")));
  ASSERT_TRUE(q.push(2'000'100, frame("data")));
  EXPECT_EQ(q.next_due(), 15'000'100);
  EXPECT_TRUE(release(q, 15'000'099).empty());
  EXPECT_EQ(release(q, 15'000'100), std::vector<std::string>{"syn"});
  EXPECT_EQ(q.next_due(), 17'000'100);
  EXPECT_EQ(q.frames(), 1u);
  EXPECT_EQ(q.bytes(), 4u);
  EXPECT_EQ(release(q, 99'000'000), std::vector<std::string>{"data"});
  EXPECT_FALSE(q.next_due());
  EXPECT_EQ(q.bytes(), 0u);
}

TEST(LabDelayQueue, FramesDueTogetherLeaveInArrivalOrder) {
  DelayQueue q(1000, 1 << 20);
  for (const char* s : {"a", "b", "c"}) ASSERT_TRUE(q.push(5, frame(s)));
  EXPECT_EQ(release(q, 1005), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(LabDelayQueue, AClockStepBackNeverReorders) {
  DelayQueue q(1000, 1 << 20);
  ASSERT_TRUE(q.push(500, frame("first")));
  ASSERT_TRUE(q.push(400, frame("second")));
  EXPECT_EQ(release(q, 1400), std::vector<std::string>{});
  EXPECT_EQ(release(q, 1500), (std::vector<std::string>{"first", "second"}));
}

TEST(LabDelayQueue, AFrameBeyondTheBoundIsDroppedAndCounted) {
  DelayQueue q(10, 8);
  EXPECT_TRUE(q.push(0, frame("12345")));
  EXPECT_FALSE(q.push(0, frame("6789")));
  EXPECT_TRUE(q.push(0, frame("678")));
  EXPECT_EQ(q.dropped(), 1u);
  EXPECT_EQ(q.bytes(), 8u);
  EXPECT_EQ(release(q, 10), (std::vector<std::string>{"12345", "678"}));
}

}  // namespace
}  // namespace ackstall::lab
