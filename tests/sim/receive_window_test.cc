#include "ackstall/sim/receive_window.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

WindowInput in(std::int64_t space, std::int64_t promised, std::int64_t rcvbuf = 17520, std::int64_t mss = 1460) {
  return {.space = space, .rcvbuf = rcvbuf, .maxseg = mss, .promised = promised, .max_win = 65535};
}

TEST(BsdWindow, ReceiverSillyWindowAvoidanceAndNeverShrink) {
  EXPECT_EQ(advertised_window(ReceiveWindowKind::bsd, in(1000, 0)), 0);      // < mss and < 1/4
  EXPECT_EQ(advertised_window(ReceiveWindowKind::bsd, in(5000, 0)), 5000);
  EXPECT_EQ(advertised_window(ReceiveWindowKind::bsd, in(1000, 3000)), 3000);  // never shrink
  EXPECT_EQ(advertised_window(ReceiveWindowKind::ns3, in(1000, 3000)), 1000);
  EXPECT_EQ(advertised_window(ReceiveWindowKind::linux, in(5000, 0)), 4380);   // whole MSS
}

// The seed's mechanism (§3): after the 4th segment's immediate ACK advertised 16060 (one segment
// unread), reading segments 4 and 5 opens adv = 17520 - (16060 - 1460) = 2920 >= 2 * 1460, so a
// window update ACKs segment 5 at once. The 892-byte tail behind a fresh 17520 window opens only
// 892: no update, the tail's ACK waits for the delayed-ACK timer.
TEST(BsdWindow, UpdateOnReadSeedMechanism) {
  EXPECT_TRUE(window_update_due(ReceiveWindowKind::bsd, in(17520, 16060 - 1460)));
  EXPECT_FALSE(window_update_due(ReceiveWindowKind::bsd, in(17520, 17520 - 892)));
  EXPECT_FALSE(window_update_due(ReceiveWindowKind::ns3, in(17520, 0)));  // ns-3 has none
}

TEST(BsdWindow, HalfBufferRule) {
  // adv = 9000 - 0 = 9000 >= 2*1460 anyway; with a large MSS only the half-buffer test applies.
  EXPECT_TRUE(window_update_due(ReceiveWindowKind::bsd, in(9000, 0, 17520, 9000)));
  EXPECT_FALSE(window_update_due(ReceiveWindowKind::bsd, in(8000, 0, 17520, 9000)));
}

TEST(LinuxWindow, UpdateWhenWindowDoubles) {
  EXPECT_TRUE(window_update_due(ReceiveWindowKind::linux, in(17520, 4000)));
  EXPECT_FALSE(window_update_due(ReceiveWindowKind::linux, in(17520, 9000)));  // > half clamp
}

TEST(AllWindows, NeverNegative) {
  for (auto k : {ReceiveWindowKind::bsd, ReceiveWindowKind::linux, ReceiveWindowKind::ns3})
    for (std::int64_t space = -3000; space <= 20000; space += 701)
      for (std::int64_t promised = 0; promised <= 20000; promised += 1303)
        ASSERT_GE(advertised_window(k, in(space, promised)), 0);
}

}  // namespace
}  // namespace ackstall::sim
