#include "ackstall/sim/rtt.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

TEST(Rtt, Rfc6298WithMinimum) {
  RttEstimator r(Nanos::s(3), Nanos::ms(300));
  EXPECT_EQ(r.rto(), Nanos::s(3));
  r.sample(Nanos::us(200));
  EXPECT_EQ(r.srtt(), Nanos::us(200));
  EXPECT_EQ(r.rto(), Nanos::ms(300));  // clamped to rto_min
  r.sample(Nanos::s(1));               // a long sample raises srtt and rttvar
  EXPECT_GT(r.rto(), Nanos::ms(300));
  r.backoff();
  const Nanos b = r.rto();
  r.backoff();
  EXPECT_EQ(r.rto(), b * 2);
  for (int i = 0; i < 20; ++i) r.backoff();
  EXPECT_EQ(r.rto(), Nanos::s(64));
}

}  // namespace
}  // namespace ackstall::sim
