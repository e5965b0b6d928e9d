#include "ackstall/core/delayed_ack_timers.h"

#include <gtest/gtest.h>

namespace ackstall::core {
namespace {

bool mentions(const std::vector<std::string>& fits, const std::string& what) {
  for (const auto& f : fits) {
    if (f.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(DelayedAckTimers, LinuxMinimumAtoFitsLinuxOnly) {
  const auto fits = delayed_ack_timer_fits(42'700'000);  // measured at HZ=250 (STACKS §7)
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_TRUE(mentions(fits, "Linux"));
}

TEST(DelayedAckTimers, TwoHundredMillisecondsFitsWindowsAndOpenBsd) {
  const auto fits = delayed_ack_timer_fits(200'000'000);
  EXPECT_TRUE(mentions(fits, "Windows"));
  EXPECT_TRUE(mentions(fits, "OpenBSD"));
  EXPECT_FALSE(mentions(fits, "Linux"));
}

TEST(DelayedAckTimers, BoundsAreTwentyFivePercent) {
  EXPECT_TRUE(mentions(delayed_ack_timer_fits(75'000'000), "FreeBSD"));
  EXPECT_FALSE(mentions(delayed_ack_timer_fits(74'000'000), "FreeBSD"));
  EXPECT_TRUE(mentions(delayed_ack_timer_fits(125'000'000), "FreeBSD"));
  EXPECT_FALSE(mentions(delayed_ack_timer_fits(126'000'000), "FreeBSD"));
}

TEST(DelayedAckTimers, NoFitBelowTwoHundredIsTheOldBsdTick) {
  const auto fits = delayed_ack_timer_fits(10'000'000);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_TRUE(mentions(fits, "pre-2001 BSD"));
  EXPECT_TRUE(delayed_ack_timer_fits(0).empty());
  EXPECT_TRUE(delayed_ack_timer_fits(400'000'000).empty());
}

}  // namespace
}  // namespace ackstall::core
