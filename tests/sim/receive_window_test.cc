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

// __tcp_select_window, Linux 6.1 tcp_output.c.
TEST(LinuxWindow, RcvSsthreshCapsTheWindow) {
  WindowInput w = in(60000, 0, 87380, 1448);
  w.ssthresh = 14480;  // tcp_select_initial_window: 10 segments
  EXPECT_EQ(linux_select_window(w), 14480);
  w.ssthresh = 0;
  EXPECT_EQ(linux_select_window(w), 60000 / 1448 * 1448);
}

TEST(LinuxWindow, WithWindowScalingAlignedUpNotRoundedToMss) {
  WindowInput w = in(80001, 0, 87380, 1448);
  w.wscale = 7;
  EXPECT_EQ(linux_select_window(w), 80128);  // ALIGN(80001, 128), not 55 * 1448
  w.space = 87380 - 1448;  // one segment unread: the window falls below an offer of 87424
  w.last_wnd = 87424;
  EXPECT_LT(linux_select_window(w), w.last_wnd);
}

TEST(LinuxWindow, KeepsAnOfferWithinOneMssOfTheFreeSpace) {
  WindowInput w = in(60000, 0, 87380, 1448);
  w.last_wnd = 59500;  // within one MSS below 60000: kept ("prevents the divide and multiply")
  EXPECT_EQ(linux_select_window(w), 59500);
  w.last_wnd = 50000;
  EXPECT_EQ(linux_select_window(w), 60000 / 1448 * 1448);
}

TEST(LinuxWindow, BelowASixteenthOfTheBufferOrOneMssIsZero) {
  EXPECT_EQ(linux_select_window(in(1400, 0, 87380, 1448)), 0);
  EXPECT_EQ(linux_select_window(in(5000, 0, 87380, 1448)), 0);  // < 87380 / 16
}

// tcp_grow_window, Linux 6.1 tcp_input.c.
TEST(LinuxWindow, RcvSsthreshGrowsTwoSegmentsPerSegmentUpToTheFreeSpace) {
  EXPECT_EQ(linux_grow_ssthresh(14480, 87380, 87380, 1448, 1448), 14480 + 2896);
  EXPECT_EQ(linux_grow_ssthresh(86000, 87380, 87380, 1448, 1448), 87380);  // room-limited
  EXPECT_EQ(linux_grow_ssthresh(40000, 87380, 30000, 1448, 1448), 40000);  // free space below it
  EXPECT_EQ(linux_grow_ssthresh(14480, 87380, 87380, 1448, 100), 14480);   // skb->len < 128
}

TEST(AllWindows, NeverNegative) {
  for (auto k : {ReceiveWindowKind::bsd, ReceiveWindowKind::linux, ReceiveWindowKind::ns3})
    for (std::int64_t space = -3000; space <= 20000; space += 701)
      for (std::int64_t promised = 0; promised <= 20000; promised += 1303)
        ASSERT_GE(advertised_window(k, in(space, promised)), 0);
}

}  // namespace
}  // namespace ackstall::sim
