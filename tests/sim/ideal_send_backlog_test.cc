#include "ackstall/sim/ideal_send_backlog.h"

#include "ackstall/sim/send_buffer.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

TEST(IdealSendBacklog, InitialUntilTheFirstSample) {
  IdealSendBacklog isb(65536);
  EXPECT_EQ(isb.value(), 65536);
  EXPECT_EQ(isb.samples(), 0);
  // A sample with nothing delivered, or no time, is ignored.
  EXPECT_EQ(isb.sample(0, Nanos::ms(1), Nanos::ms(1), 1 << 20), 65536);
  EXPECT_EQ(isb.sample(1000, Nanos::zero(), Nanos::ms(1), 1 << 20), 65536);
  EXPECT_EQ(isb.samples(), 0);
}

TEST(IdealSendBacklog, TwiceTheBdpBoundedByThePeerWindow) {
  IdealSendBacklog isb(65536);
  // 12.5 MB/s (100 Mbit/s) x 50 ms = 625000 bytes of BDP: the ISB is twice that.
  EXPECT_EQ(isb.sample(625000, Nanos::ms(50), Nanos::ms(50), 16 << 20), 1250000);
  EXPECT_DOUBLE_EQ(isb.max_rate(), 12.5e6);
  // The receiver's window bounds the BDP: 2 x 262144.
  EXPECT_EQ(isb.sample(625000, Nanos::ms(50), Nanos::ms(50), 262144), 524288);
}

TEST(IdealSendBacklog, FloorAtInitialCeilingAt16MiB) {
  IdealSendBacklog lan(65536);
  // A LAN: 12.5 MB/s x 200 us = 2500 bytes; the floor holds the quota at the initial value.
  EXPECT_EQ(lan.sample(2500, Nanos::us(200), Nanos::us(200), 1 << 20), 65536);
  IdealSendBacklog fat(65536);
  EXPECT_EQ(fat.sample(std::int64_t{1} << 30, Nanos::s(1), Nanos::s(1), std::int64_t{1} << 30),
            IdealSendBacklog::kMax);
}

TEST(IdealSendBacklog, WindowedMaxForgetsOldRates) {
  IdealSendBacklog isb(1000);
  isb.sample(100000, Nanos::ms(10), Nanos::ms(10), 1 << 30);  // 10 MB/s
  for (std::size_t i = 0; i + 1 < IdealSendBacklog::kRateWindow; ++i)
    isb.sample(10000, Nanos::ms(10), Nanos::ms(10), 1 << 30);  // 1 MB/s
  EXPECT_DOUBLE_EQ(isb.max_rate(), 10e6);  // still in the window
  isb.sample(10000, Nanos::ms(10), Nanos::ms(10), 1 << 30);
  EXPECT_DOUBLE_EQ(isb.max_rate(), 1e6);  // pushed out
  EXPECT_EQ(isb.value(), 20000);
}

TEST(IdealSendBacklog, UnsetAfdQuotaFollowsSamplesUntilSetsockopt) {
  SendBufferConfig cfg;
  cfg.kind = SendBufferKind::afd;
  cfg.size = kCygwinUnsetWmem;
  cfg.unset = true;
  cfg.isb_initial = 65536;
  SendBufferAccounting sb(cfg);
  EXPECT_EQ(sb.quota(), 65536);  // not wmem (): Winsock's own buffer
  sb.on_delivery_sample(625000, Nanos::ms(50), Nanos::ms(50), 16 << 20);
  EXPECT_EQ(sb.quota(), 1250000);
  sb.set_size(32768);  // setsockopt(SO_SNDBUF): dynamic send buffering ends
  EXPECT_EQ(sb.quota(), 32768);
  EXPECT_FALSE(sb.on_delivery_sample(625000, Nanos::ms(50), Nanos::ms(50), 16 << 20));
  EXPECT_EQ(sb.quota(), 32768);
}

TEST(IdealSendBacklog, SetSndbufIgnoresSamples) {
  SendBufferConfig cfg;
  cfg.kind = SendBufferKind::afd;
  cfg.size = 8192;
  SendBufferAccounting sb(cfg);
  EXPECT_EQ(sb.quota(), 8192);
  EXPECT_FALSE(sb.on_delivery_sample(625000, Nanos::ms(50), Nanos::ms(50), 16 << 20));
  EXPECT_EQ(sb.quota(), 8192);
}

}  // namespace
}  // namespace ackstall::sim
