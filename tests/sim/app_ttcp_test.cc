// ttcp -t / ttcp -r application models driven directly (app_ttcp.h).
#include "ackstall/sim/app_ttcp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ackstall::sim {
namespace {

// The rng the send/read costs and the teardown draw from: the default (constant) costs never
// touch it, so the wake-ups' draws below are as they were.
Rng costs{0};

constexpr core::SocketParams kXp{.sndbuf = 8192, .mss = 1460, .stream = true};

Delay delay(std::string_view text) { return *Delay::parse(text); }

SendOutcome accepted(std::int64_t n) { return {.accepted = n, .would_block = false, .completed = true}; }
SendOutcome would_block() { return {.accepted = 0, .would_block = true, .completed = true}; }

TtcpTransmitterConfig writes(std::int64_t n, std::int64_t len) {
  TtcpTransmitterConfig c;
  c.writes = n;
  c.write_len = len;
  return c;
}

TEST(TtcpTransmitter, WritesThenClosesOneSendPerWrite) {
  TtcpTransmitter tx(writes(2, 8192), kXp);
  EXPECT_EQ(tx.run(Nanos::zero()).kind, TxKind::none);  // not connected yet
  const Nanos t0 = tx.connected(Nanos::us(100));
  EXPECT_EQ(t0, Nanos::us(100));
  TxRequest r = tx.run(t0);
  ASSERT_EQ(r.kind, TxKind::send);
  EXPECT_EQ(r.len, 8192);
  EXPECT_TRUE(r.nonblocking);  // Cygwin: every socket nonblocking (§1)
  const Nanos t1 = tx.sent(t0, accepted(8192), costs);
  EXPECT_EQ(t1, t0 + Nanos::us(2));  // send_cost
  r = tx.run(t1);
  ASSERT_EQ(r.kind, TxKind::send);
  EXPECT_EQ(tx.writes_started(), 2);
  const Nanos t2 = tx.sent(t1, accepted(8192), costs);
  EXPECT_EQ(tx.run(t2).kind, TxKind::close);  // close_when_done: FIN after the last write
  EXPECT_TRUE(tx.done());
  EXPECT_EQ(tx.run(t2).kind, TxKind::none);
  EXPECT_EQ(tx.send_calls(), 2u);
  EXPECT_EQ(tx.would_block(), 0u);
}

TEST(TtcpTransmitter, NoCloseWhenNotAsked) {
  TtcpTransmitterConfig c = writes(1, 100);
  c.close_when_done = false;
  TtcpTransmitter tx(c, kXp);
  tx.connected(Nanos::zero());
  ASSERT_EQ(tx.run(Nanos::zero()).kind, TxKind::send);
  const Nanos t = tx.sent(Nanos::zero(), accepted(100), costs);
  EXPECT_EQ(tx.run(t).kind, TxKind::none);
  EXPECT_TRUE(tx.done());
}

TEST(TtcpTransmitter, WouldBlockWaitsForWritableThenRetriesTheSamePiece) {
  TtcpTransmitter tx(writes(1, 8192), kXp);
  tx.connected(Nanos::zero());
  ASSERT_EQ(tx.run(Nanos::zero()).len, 8192);
  EXPECT_TRUE(tx.sent(Nanos::us(1), would_block(), costs).is_never());  // WSAEWOULDBLOCK
  EXPECT_TRUE(tx.waiting());
  EXPECT_EQ(tx.run(Nanos::us(5)).kind, TxKind::none);  // a stray run while waiting does nothing
  Rng rng(1);
  const AppWake w = tx.writable(Nanos::ms(200), rng);  // FD_WRITE
  ASSERT_EQ(w.stall_count, 2);
  EXPECT_EQ(w.stalls[0].kind, StallKind::quota_wait);
  EXPECT_EQ(w.stalls[0].begin, Nanos::us(1));
  EXPECT_EQ(w.stalls[0].end, Nanos::ms(200));
  EXPECT_EQ(w.stalls[1].kind, StallKind::wakeup);
  EXPECT_EQ(w.stalls[1].end - w.stalls[1].begin, Nanos::us(200));  // wakeup [calibrated]
  EXPECT_EQ(w.at, Nanos::ms(200) + Nanos::us(200));
  const TxRequest r = tx.run(w.at);
  ASSERT_EQ(r.kind, TxKind::send);
  EXPECT_EQ(r.len, 8192);  // the same piece again
  EXPECT_EQ(tx.send_calls(), 1u);
  EXPECT_EQ(tx.would_block(), 1u);
}

TEST(TtcpTransmitter, WritableWhileNotWaitingIsIgnoredAndDrawsNothing) {
  TtcpTransmitterConfig c = writes(1, 8192);
  c.wakeup = delay("200us + uniform(50us)");
  TtcpTransmitter tx(c, kXp);
  tx.connected(Nanos::zero());
  Rng rng(7), fresh(7);
  const AppWake w = tx.writable(Nanos::zero(), rng);
  EXPECT_FALSE(w.runs());
  EXPECT_EQ(w.stall_count, 0);
  EXPECT_EQ(rng.next(), fresh.next());  // the run's RNG stream is untouched
}

TEST(TtcpTransmitter, WakeupJitterComesFromTheRunsRng) {
  TtcpTransmitterConfig c = writes(1, 8192);
  c.wakeup = delay("200us + uniform(50us)");
  TtcpTransmitter tx(c, kXp);
  tx.connected(Nanos::zero());
  tx.run(Nanos::zero());
  tx.sent(Nanos::zero(), would_block(), costs);
  Rng rng(3), same(3);
  const AppWake w = tx.writable(Nanos::ms(1), rng);
  EXPECT_EQ(w.at, Nanos::ms(1) + Nanos::us(200) + same.uniform(Nanos::us(50)));
}

TEST(TtcpTransmitter, BlockingSendWaitsForAWithheldCompletion) {
  TtcpTransmitterConfig c = writes(2, 8192);
  c.nonblocking = false;
  TtcpTransmitter tx(c, kXp);
  tx.connected(Nanos::zero());
  const TxRequest r = tx.run(Nanos::zero());
  EXPECT_FALSE(r.nonblocking);
  // KB214397 rule 3: copied, but the completion is withheld (§1).
  EXPECT_TRUE(tx.sent(Nanos::zero(), {.accepted = 8192, .would_block = false, .completed = false}, costs).is_never());
  EXPECT_TRUE(tx.waiting());
  Rng rng(1);
  const AppWake w = tx.writable(Nanos::ms(3), rng);
  EXPECT_EQ(w.stalls[0].kind, StallKind::quota_wait);
  const TxRequest next = tx.run(w.at);
  ASSERT_EQ(next.kind, TxKind::send);
  EXPECT_EQ(tx.writes_started(), 2);  // the first write was whole: the next one starts
}

TEST(TtcpTransmitter, ChunkPolicyCutsEachWriteIntoSends) {
  TtcpTransmitterConfig c = writes(2, 8192);
  c.chunking = core::PolicyKind::seed;
  TtcpTransmitter tx(c, kXp);
  const std::vector<std::size_t> plan = core::ChunkPolicy(core::PolicyKind::seed, kXp).plan(8192);
  ASSERT_GT(plan.size(), 1u);
  Nanos t = tx.connected(Nanos::zero());
  std::vector<std::size_t> sends;
  for (TxRequest r = tx.run(t); r.kind == TxKind::send; r = tx.run(t)) {
    sends.push_back(static_cast<std::size_t>(r.len));
    t = tx.sent(t, accepted(r.len), costs);
  }
  std::vector<std::size_t> want = plan;
  want.insert(want.end(), plan.begin(), plan.end());
  EXPECT_EQ(sends, want);
}

// robust with the raise allowed, jumbo MSS, M < S < 2M: after the handshake the transmitter
// raises SO_SNDBUF to 4 MSS where the peer's window holds it, and cuts its writes under the new
// quota (the simulation then sets the sender's buffer to what raise_sndbuf returns).
TEST(TtcpTransmitter, RaiseFollowsThePeersWindow) {
  TtcpTransmitterConfig c = writes(1, 65536);
  c.chunking = core::PolicyKind::robust;
  c.allow_raise_sndbuf = true;
  const core::SocketParams jumbo{.sndbuf = 16384, .mss = 8960, .stream = true, .per_send_quota = true,
                                 .allow_raise_sndbuf = true};
  TtcpTransmitter narrow(c, jumbo);
  EXPECT_EQ(narrow.raise_sndbuf(17920), 16384);  // OpenBSD's window: one-MSS chunks stay
  Nanos t = narrow.connected(Nanos::zero());
  EXPECT_EQ(narrow.run(t).len, 8960);
  TtcpTransmitter wide(c, jumbo);
  EXPECT_EQ(wide.raise_sndbuf(65535), 4 * 8960);  // Linux's: 4 MSS, the seed's chunks under it
  t = wide.connected(Nanos::zero());
  EXPECT_EQ(wide.run(t).len, 3 * 8960);
  c.allow_raise_sndbuf = false;
  core::SocketParams forbidden = jumbo;
  forbidden.allow_raise_sndbuf = false;
  TtcpTransmitter kept(c, forbidden);
  EXPECT_EQ(kept.raise_sndbuf(65535), 16384);
}

TEST(TtcpTransmitter, PartialAcceptSendsTheRestOfThePiece) {
  TtcpTransmitter tx(writes(1, 8192), kXp);
  tx.connected(Nanos::zero());
  tx.run(Nanos::zero());
  const Nanos t = tx.sent(Nanos::zero(), accepted(5000), costs);  // bsd sosend: partial accept
  const TxRequest r = tx.run(t);
  ASSERT_EQ(r.kind, TxKind::send);
  EXPECT_EQ(r.len, 3192);
}

TEST(TtcpReceiver, BlockingReadLoop) {
  TtcpReceiverConfig c;  // read_len 8192, read_wakeup 15 us, read_cost 2 us
  TtcpReceiver rx(c);
  Rng rng(1);
  EXPECT_EQ(rx.run(Nanos::zero(), false, costs).read, 8192);  // ttcp -r reads without select()
  EXPECT_TRUE(rx.read_done(Nanos::zero(), 0, costs).is_never());  // nothing there: blocked in read()
  const AppWake w = rx.readable(Nanos::ms(1), rng);
  EXPECT_EQ(w.at, Nanos::ms(1) + Nanos::us(15));
  EXPECT_EQ(w.stall_count, 0);
  EXPECT_FALSE(rx.readable(Nanos::ms(1), rng).runs());  // already woken
  EXPECT_EQ(rx.run(w.at, true, costs).read, 8192);
  EXPECT_EQ(rx.read_done(w.at, 1448, costs), w.at + Nanos::us(2));
  EXPECT_FALSE(rx.readable(w.at, rng).runs());  // the next read is already scheduled
  EXPECT_EQ(rx.read_calls(), 2u);
}

TEST(TtcpReceiver, PerByteCpu) {
  TtcpReceiver rx(TtcpReceiverConfig{}, 2000);  // 2 ns per byte
  rx.run(Nanos::zero(), true, costs);
  EXPECT_EQ(rx.read_done(Nanos::zero(), 1000, costs), Nanos::us(2) + Nanos::us(2));
}

TEST(TtcpReceiver, ReadJitterIsAnExponentialDrawFromTheRunsRng) {
  TtcpReceiverConfig c;
  c.read_wakeup = delay("10us + exp(50us)");
  Rng a(9), b(9);
  std::int64_t sum = 0;
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    TtcpReceiver rx(c), same(c);
    const AppWake w = rx.readable(Nanos::zero(), a);
    EXPECT_EQ(w.at, same.readable(Nanos::zero(), b).at);  // same seed, same draw
    ASSERT_GE(w.at, Nanos::us(10));
    sum += (w.at - Nanos::us(10)).count();
  }
  const double mean_us = static_cast<double>(sum) / kN / 1000.0;
  EXPECT_NEAR(mean_us, 50.0, 2.0);
  Rng untouched(9), probe(9);
  TtcpReceiver none(TtcpReceiverConfig{});
  (void)none.readable(Nanos::zero(), untouched);  // zero jitter draws nothing
  EXPECT_EQ(untouched.next(), probe.next());
}

// Late wake-ups (a rare-event term) spread as the lab's captures show them: a shift plus an
// exponential draw; on-time wake-ups are not moved.
TEST(TtcpReceiver, LateWakeUpsSpreadByAnExponentialDraw) {
  TtcpReceiverConfig c;
  c.read_wakeup = delay("20us + 250000ppm * (100us + exp(200us))");  // a quarter of the wake-ups late
  Rng rng(3);
  int late = 0;
  std::int64_t extra = 0;
  Nanos lo = Nanos::never();
  constexpr int kN = 40000;
  for (int i = 0; i < kN; ++i) {
    TtcpReceiver rx(c);
    const Nanos d = rx.readable(Nanos::zero(), rng).at - Nanos::us(20);
    if (d == Nanos::zero()) continue;  // on time
    ASSERT_GE(d, Nanos::us(100));
    lo = std::min(lo, d);
    ++late;
    extra += (d - Nanos::us(100)).count();
  }
  EXPECT_NEAR(late, kN / 4, kN / 50);
  EXPECT_NEAR(static_cast<double>(extra) / late / 1000.0, 200.0, 10.0);  // the exponential's mean
  EXPECT_LT(lo, Nanos::us(105));  // the shift is the minimum
}

// Late wake-ups drawn from measured quantiles (the lab's percentiles): the draw's
// own quantiles are the table's, linear in between; a cluster and a long tail both survive,
// which no shifted exponential through two quantiles keeps (docs/VALIDATION.md §4).
TEST(TtcpReceiver, LateWakeUpsFollowTheirQuantiles) {
  TtcpReceiverConfig c;
  // Every wake-up late: the draw alone. p0 200, p25 240, p50 260, p75 280, p100 4000 us: 3/4 of
  // the mass within 80 us, then a tail.
  c.read_wakeup = delay("20us + 1000000ppm * quantiles(200us, 240us, 260us, 280us, 4000us)");
  Rng rng(5);
  std::vector<std::int64_t> d;
  constexpr int kN = 40000;
  for (int i = 0; i < kN; ++i) {
    TtcpReceiver rx(c);
    d.push_back((rx.readable(Nanos::zero(), rng).at - Nanos::us(20)).count());
  }
  std::sort(d.begin(), d.end());
  const auto q = [&](double p) { return static_cast<double>(d[static_cast<std::size_t>(p * (kN - 1))]) / 1000.0; };
  EXPECT_GE(q(0.0), 200.0);
  EXPECT_NEAR(q(0.125), 220.0, 3.0);  // halfway between p0 and p25
  EXPECT_NEAR(q(0.25), 240.0, 3.0);
  EXPECT_NEAR(q(0.5), 260.0, 3.0);
  EXPECT_NEAR(q(0.75), 280.0, 3.0);
  EXPECT_NEAR(q(0.875), 2140.0, 60.0);  // halfway up the tail
  EXPECT_LE(q(1.0), 4000.0);

  // Quantiles outside the rare term: every wake-up adds a draw from the reader's own latency (the
  // lab's pair-ACK delays: a mode at 10-16 us and one at 30-58 us).
  TtcpReceiverConfig on_time;
  on_time.read_wakeup = delay("quantiles(8us, 12us, 16us, 56us)");
  int slow = 0;
  for (int i = 0; i < 3000; ++i) {
    TtcpReceiver rx(on_time);
    const Nanos at = rx.readable(Nanos::zero(), rng).at;
    ASSERT_GE(at, Nanos::us(8));
    ASSERT_LE(at, Nanos::us(56));
    slow += at > Nanos::us(16);
  }
  EXPECT_NEAR(slow, 1000, 100);  // the top third: between p66.7 (16 us) and p100

  // Empty: no draw, so runs without the key keep their random numbers.
  Rng untouched(9), probe(9);
  EXPECT_EQ(from_quantiles(untouched, {}), Nanos::zero());
  EXPECT_EQ(untouched.next(), probe.next());
}

}  // namespace
}  // namespace ackstall::sim
