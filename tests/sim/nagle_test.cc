#include "ackstall/sim/nagle.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

// Exhaustive truth table over the two inputs.
TEST(Nagle, TruthTable) {
  for (bool idle : {false, true}) {
    for (bool short_unacked : {false, true}) {
      const NagleInput in{.idle = idle, .short_unacked = short_unacked};
      EXPECT_TRUE(nagle_allows_short(NagleKind::off, in));
      EXPECT_EQ(nagle_allows_short(NagleKind::classic, in), idle);
      EXPECT_EQ(nagle_allows_short(NagleKind::minshall, in), !short_unacked);
    }
  }
}

// The seed's case: the 892-byte tail of an 8192-byte send behind five un-ACKed full segments.
TEST(Nagle, SeedTailHeldByClassicNotByMinshall) {
  const NagleInput tail{.idle = false, .short_unacked = false};
  EXPECT_FALSE(nagle_allows_short(NagleKind::classic, tail));
  EXPECT_TRUE(nagle_allows_short(NagleKind::minshall, tail));
}

}  // namespace
}  // namespace ackstall::sim
