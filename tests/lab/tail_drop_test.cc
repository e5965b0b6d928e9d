// The delay line's tail drop (lab/tail_drop.h): a write's last segment (PSH, data, one segment,
// new to its flow) is a candidate, nothing else is; each candidate is dropped with the given
// probability from a seeded stream, the same stream for the same seed; a retransmission of a
// dropped tail passes.
#include "ackstall/lab/tail_drop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "lab_frames.h"

namespace ackstall::lab {
namespace {

constexpr std::uint8_t kPsh = 0x08;
constexpr std::uint32_t kMss = 1448;

// A data segment from a of `payload` bytes at seq; psh: the write's last.
Seg seg(std::uint32_t seq, std::uint32_t payload, bool psh) {
  return {.from_receiver = false, .seq = seq, .ack = 1,
          .flags = static_cast<std::uint8_t>(kTcpAck | (psh ? kPsh : 0)), .payload = payload};
}

bool tail(const Seg& s) {
  const auto t = parse_tcp_frame(frame(s));
  EXPECT_TRUE(t);
  return t && is_write_tail(*t);
}

TEST(LabTailDrop, OnlyAWritesLastSegmentIsATail) {
  EXPECT_TRUE(tail(seg(1000, 500, true)));
  EXPECT_FALSE(tail(seg(1000, kMss, false)));        // mid-write: no PSH
  EXPECT_FALSE(tail({.from_receiver = true, .seq = 1, .ack = 2000, .flags = kTcpAck | kPsh}));  // a pure ACK
  Seg fin = seg(1000, 500, true);
  fin.flags |= kTcpFin;
  EXPECT_FALSE(tail(fin));                           // the last write with the FIN: left alone
  Seg syn = seg(1000, 0, true);
  syn.flags = kTcpSyn | kPsh;
  EXPECT_FALSE(tail(syn));
  Seg gso = seg(1000, 3 * kMss, true);
  gso.gso_size = kMss;
  EXPECT_FALSE(tail(gso));                           // three segments: only the last would be the tail
  Seg one = seg(1000, 700, true);
  one.gso_size = kMss;
  EXPECT_TRUE(tail(one));
  Seg v6 = seg(1000, 500, true);
  v6.ipv6 = true;
  EXPECT_TRUE(tail(v6));
}

TEST(LabTailDrop, ProbabilityOneDropsEachTailOnceAndNothingElse) {
  TailDropper d(1.0, 7);
  EXPECT_FALSE(d.drop(frame(seg(1000, kMss, false))));
  EXPECT_TRUE(d.drop(frame(seg(1000 + kMss, 600, true))));   // the write's tail
  EXPECT_FALSE(d.drop(frame(seg(1000 + kMss, 600, true))));  // its retransmission (TLP or RTO) passes
  EXPECT_FALSE(d.drop(frame(seg(1000, kMss, false))));
  EXPECT_TRUE(d.drop(frame(seg(1000 + kMss + 600, 300, true))));  // the next write's tail
  EXPECT_FALSE(d.drop(frame({.from_receiver = true, .seq = 1, .ack = 3000, .flags = kTcpAck | kPsh})));
  EXPECT_EQ(d.candidates(), 2u);
  EXPECT_EQ(d.dropped(), 2u);
  // Another flow (another port of a) has its own sequence space.
  Seg other = seg(1000 + kMss, 600, true);
  other.sport_a = 40001;
  EXPECT_TRUE(d.drop(frame(other)));
}

TEST(LabTailDrop, ANewConnectionOnTheSamePortsStartsAfresh) {
  TailDropper d(1.0, 7);
  EXPECT_TRUE(d.drop(frame(seg(5000, 100, true))));
  Seg syn = seg(900, 0, false);
  syn.flags = kTcpSyn;
  EXPECT_FALSE(d.drop(frame(syn)));
  EXPECT_TRUE(d.drop(frame(seg(1000, 100, true))));  // below the old connection's end, yet new
}

TEST(LabTailDrop, ProbabilityZeroDropsNothing) {
  TailDropper d(0.0, 7);
  for (std::uint32_t i = 0; i < 100; ++i) EXPECT_FALSE(d.drop(frame(seg(1000 + i * 100, 100, true))));
  EXPECT_EQ(d.dropped(), 0u);
}

// The drops of n one-segment writes at probability p from seed.
std::vector<bool> drops(double p, std::uint64_t seed, int n) {
  TailDropper d(p, seed);
  std::vector<bool> out;
  for (int i = 0; i < n; ++i) out.push_back(d.drop(frame(seg(1000 + static_cast<std::uint32_t>(i) * 100, 100, true))));
  return out;
}

TEST(LabTailDrop, TheSameSeedDropsTheSameTailsAndTheShareIsTheProbability) {
  const auto a = drops(0.3, 37, 4000);
  EXPECT_EQ(a, drops(0.3, 37, 4000));
  EXPECT_NE(a, drops(0.3, 38, 4000));
  const auto n = static_cast<double>(std::count(a.begin(), a.end(), true));
  // 4000 draws at p = 0.3: standard deviation sqrt(4000 * 0.3 * 0.7) = 29, so 1200 +- 5 sigma.
  EXPECT_NEAR(n, 1200.0, 145.0);
  // splitmix64's stream is fixed: the first draws of seed 37 (a platform's library changing
  // them would change every lab corpus drawn from the seed).
  // (The values: splitmix64 computed apart, in Python, from the same constants.)
  EXPECT_DOUBLE_EQ(seeded_draw(37, 0), 0.779958130206572);
  EXPECT_DOUBLE_EQ(seeded_draw(37, 1), 0.7125201829721015);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const double u = seeded_draw(37, i);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace ackstall::lab
