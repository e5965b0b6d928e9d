#include "ackstall/live/attribution.h"

#include <gtest/gtest.h>

#include <numeric>

namespace ackstall::live {
namespace {

using core::LimitCause;
constexpr std::int64_t kMs = 1'000'000;

std::int64_t t(const Attribution& a, LimitCause c) { return a.times[static_cast<std::size_t>(c)]; }
std::int64_t sum(const Attribution& a) { return std::accumulate(a.times.begin(), a.times.end(), std::int64_t{0}); }

// A sender 100 ms apart: BEFORE at 0, AFTER at 100 ms with the given chronograph deltas (us).
struct Pair {
  Sample before, after;
};
Pair sender(std::uint64_t busy_us, std::uint64_t rwnd_us, std::uint64_t sndbuf_us) {
  Pair p;
  for (Sample* s : {&p.before, &p.after}) {
    s->key = {"10.0.0.1:40000", "10.0.0.2:5001", 40000, 5001, 9};
    s->info.state = 1;
    s->info.rtt_us = 1000;
    s->info.min_rtt_us = 900;
    s->info.snd_cwnd = 10;
    s->info.snd_mss = 1448;
    s->info.unacked = 8;
    s->info.options = 1;
    s->info.busy_us = 5'000'000;
    s->info.rwnd_limited_us = 1'000'000;
    s->info.sndbuf_limited_us = 2'000'000;
    s->info.bytes_acked = 1'000'000;
  }
  p.after.at_ns = 100 * kMs;
  *p.after.info.busy_us += busy_us;
  *p.after.info.rwnd_limited_us += rwnd_us;
  *p.after.info.sndbuf_limited_us += sndbuf_us;
  p.after.info.bytes_acked += 500'000;
  return p;
}

TEST(Attribute, ChronographsSplitTheInterval) {
  const Pair p = sender(80'000, 30'000, 20'000);  // busy 80 ms of 100: 30 rwnd, 20 sndbuf, 30 sending
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(a.role, Role::sender);
  EXPECT_EQ(a.bytes_acked, 500'000U);
  EXPECT_EQ(t(a, LimitCause::receiver_window), 30 * kMs);
  EXPECT_EQ(t(a, LimitCause::send_buffer), 20 * kMs);
  EXPECT_EQ(t(a, LimitCause::network), 30 * kMs);
  EXPECT_EQ(t(a, LimitCause::sender_app), 20 * kMs);
  EXPECT_EQ(sum(a), 100 * kMs);
  EXPECT_EQ(a.ack_hold_ns, 0);
}

TEST(Attribute, ChronographsBeyondTheIntervalAreScaledDown) {
  const Pair p = sender(120'000, 60'000, 0);  // a jiffy tick past the wall interval
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(t(a, LimitCause::receiver_window), 50 * kMs);
  EXPECT_EQ(t(a, LimitCause::sender_app), 0);
  EXPECT_EQ(sum(a), 100 * kMs);
}

TEST(Attribute, HeldAcksOnALoneSegmentAreDelayedAck) {
  Pair p = sender(100'000, 0, 0);
  p.after.info.rtt_us = 40'500;  // srtt 40.5 ms on a 0.5 ms path: Linux's 40 ms hold
  p.after.info.min_rtt_us = 500;
  p.before.info.unacked = 1;
  p.after.info.unacked = 1;
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(a.ack_hold_ns, 40 * kMs);
  EXPECT_NEAR(static_cast<double>(t(a, LimitCause::delayed_ack)), 100.0 * 40 / 40.5 * kMs, 1e3);
  EXPECT_EQ(sum(a), 100 * kMs);
  const Verdict v = judge(a, p.after);
  ASSERT_TRUE(v.problem);
  EXPECT_EQ(*v.problem, LimitCause::delayed_ack);
  EXPECT_EQ(v.severity, Severity::major);
  EXPECT_NE(v.peer.find("Linux"), std::string::npos) << v.peer;
  ASSERT_FALSE(v.fixes.empty());
  EXPECT_NE(v.fixes.front().find("lone segment"), std::string::npos);
}

// Live names a cause the problem exactly when core's table says it is one
// (core::LimitCauseRow::problem): each row in turn holds all of a sender's interval.
TEST(Attribute, OnlyAProblemCauseOfTheTableIsNamedTheProblem) {
  const Pair p = sender(100'000, 0, 0);
  for (const core::LimitCauseRow& r : core::kLimitCauseTable) {
    Attribution a;
    a.interval_ns = 100 * kMs;
    a.role = Role::sender;
    a.times[static_cast<std::size_t>(r.cause)] = 100 * kMs;
    const Verdict v = judge(a, p.after);
    EXPECT_EQ(v.dominant, r.cause) << r.key;
    EXPECT_EQ(v.problem.has_value(), r.problem) << r.key;
    if (r.problem) {
      EXPECT_EQ(v.problem, r.cause) << r.key;
    }
  }
}

TEST(Attribute, AFullCongestionWindowWithHighRttIsTheNetworkNotDelayedAck) {
  Pair p = sender(100'000, 0, 0);
  p.after.info.rtt_us = 40'500;  // queueing: srtt far above min_rtt, but the window is full
  p.after.info.min_rtt_us = 500;
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(t(a, LimitCause::delayed_ack), 0);
  EXPECT_EQ(t(a, LimitCause::network), 100 * kMs);
  const Verdict v = judge(a, p.after);
  EXPECT_FALSE(v.problem);
  EXPECT_EQ(v.dominant, LimitCause::network);
  EXPECT_EQ(v.severity, Severity::none);
}

TEST(Attribute, AHoldBelowTheThresholdIsTheNetwork) {
  Pair p = sender(100'000, 0, 0);
  p.after.info.min_rtt_us = 100;
  p.after.info.rtt_us = 100 + static_cast<std::uint32_t>(kMinAckHoldNs / 1000) - 1;
  p.before.info.unacked = p.after.info.unacked = 1;
  EXPECT_EQ(t(attribute(p.before, p.after), LimitCause::delayed_ack), 0);
  p.after.info.rtt_us += 1;
  EXPECT_GT(t(attribute(p.before, p.after), LimitCause::delayed_ack), 0);
}

TEST(Attribute, NagleWithHeldAcksSuggestsNodelay) {
  Pair p = sender(100'000, 0, 0);
  p.after.info.rtt_us = 200'300;  // a Windows-like 200 ms hold, no timestamps
  p.after.info.min_rtt_us = 300;
  p.after.info.options = 0;
  p.before.info.unacked = p.after.info.unacked = 1;
  p.after.info.notsent_bytes = 3000;
  const Verdict v = judge(attribute(p.before, p.after), p.after);
  ASSERT_TRUE(v.problem);
  EXPECT_EQ(*v.problem, LimitCause::delayed_ack);
  EXPECT_NE(v.fixes.front().find("TCP_NODELAY"), std::string::npos);
  EXPECT_NE(v.fixes.back().find("Windows"), std::string::npos);
  EXPECT_NE(v.peer.find("Windows"), std::string::npos);
}

TEST(Attribute, RetransmissionsCostARoundTripEach) {
  Pair p = sender(100'000, 0, 0);
  p.after.info.total_retrans = p.before.info.total_retrans + 7;  // 7 x srtt 1 ms
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(a.retransmitted, 7U);
  EXPECT_EQ(t(a, LimitCause::loss), 7 * kMs);
  EXPECT_EQ(t(a, LimitCause::network), 93 * kMs);
  const Verdict v = judge(a, p.after);
  EXPECT_EQ(v.problem, LimitCause::loss);
  EXPECT_EQ(v.severity, Severity::minor);
}

TEST(Attribute, RtoInTheLossStateCountsTheTimeout) {
  Pair p = sender(100'000, 0, 0);
  p.after.info.total_retrans = p.before.info.total_retrans + 1;
  p.after.info.ca_state = 4;
  p.after.info.rto_us = 200'000;
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(t(a, LimitCause::loss), 100 * kMs);  // capped at the busy time
}

TEST(Attribute, SendBufferWaitsWithHeldAcksGoToDelayedAck) {
  Pair p = sender(100'000, 0, 100'000);
  p.after.info.rtt_us = 40'100;
  p.after.info.min_rtt_us = 100;
  p.before.info.unacked = p.after.info.unacked = 1;
  const Attribution a = attribute(p.before, p.after);
  EXPECT_GT(t(a, LimitCause::delayed_ack), 99 * kMs);
  EXPECT_LT(t(a, LimitCause::send_buffer), 1 * kMs);
}

TEST(Attribute, ASenderBetweenWritesWaitsOnItsApplication) {
  Pair p = sender(0, 0, 0);
  p.after.info.bytes_acked = p.before.info.bytes_acked;
  p.before.info.unacked = p.after.info.unacked = 0;
  const Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(a.role, Role::sender);
  EXPECT_EQ(t(a, LimitCause::sender_app), 100 * kMs);
  EXPECT_EQ(sum(a), 100 * kMs);
}

TEST(Attribute, ReceiverAndIdleSocketsGetNoCause) {
  Pair p = sender(0, 0, 0);
  p.before.info.bytes_acked = p.after.info.bytes_acked = 0;  // never sent
  p.before.info.unacked = p.after.info.unacked = 0;
  Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(a.role, Role::idle);
  EXPECT_EQ(sum(a), 0);
  p.after.info.bytes_received = 12345;
  a = attribute(p.before, p.after);
  EXPECT_EQ(a.role, Role::receiver);
  EXPECT_EQ(a.bytes_received, 12345U);
  EXPECT_EQ(sum(a), 0);
}

TEST(Attribute, WithoutChronographsTheIntervalIsBusy) {
  Pair p = sender(0, 0, 0);
  p.before.info.busy_us.reset();
  p.after.info.busy_us.reset();
  const Attribution a = attribute(p.before, p.after);
  EXPECT_TRUE(a.chrono_missing);
  EXPECT_EQ(t(a, LimitCause::network), 100 * kMs);
}

TEST(ApplyEventStalls, TimedStallsMoveNetworkThenSendBufferTime) {
  const Pair p = sender(100'000, 0, 30'000);  // network 70 ms, send buffer 30 ms
  Attribution a = attribute(p.before, p.after);
  EXPECT_EQ(apply_event_stalls(a, 80 * kMs), 0);
  EXPECT_EQ(t(a, LimitCause::delayed_ack), 80 * kMs);
  EXPECT_EQ(t(a, LimitCause::network), 0);
  EXPECT_EQ(t(a, LimitCause::send_buffer), 20 * kMs);
  EXPECT_EQ(apply_event_stalls(a, 500 * kMs), 400 * kMs);  // never beyond the interval: the rest is left
  EXPECT_EQ(t(a, LimitCause::delayed_ack), 100 * kMs);
  EXPECT_EQ(sum(a), 100 * kMs);
}

TEST(Attribute, ChronographTicksCarryIntoTheNextInterval) {
  // A socket with data out at both samples whose busy time reads a 4 ms tick short, then long.
  Pair p = sender(96'000, 0, 0);
  std::int64_t carry = 0;
  Attribution a = attribute(p.before, p.after, &carry);
  EXPECT_EQ(t(a, LimitCause::network), 100 * kMs);  // not 4 ms of application
  EXPECT_EQ(t(a, LimitCause::sender_app), 0);
  EXPECT_EQ(carry, -4 * kMs);
  p = sender(104'000, 0, 0);
  a = attribute(p.before, p.after, &carry);
  EXPECT_EQ(t(a, LimitCause::network), 100 * kMs);
  EXPECT_EQ(carry, 0);
  // Emptied in between (nothing out at the later sample): the short reading is idle time.
  p = sender(60'000, 0, 0);
  p.after.info.unacked = 0;
  a = attribute(p.before, p.after, &carry);
  EXPECT_EQ(t(a, LimitCause::sender_app), 40 * kMs);
  EXPECT_EQ(carry, 0);
}

// A sender whose write queue is full at both samples (SO_SNDBUF 64 KiB).
Pair full_buffer(std::uint32_t unacked_before, std::uint32_t cwnd_before, std::uint32_t unacked_after,
                 std::uint32_t cwnd_after) {
  Pair p = sender(100'000, 0, 0);
  for (Sample* s : {&p.before, &p.after}) {
    s->memory = SocketMemory{65536, 66000, 0};
    s->info.snd_wnd = 190'000;
  }
  p.before.info.unacked = unacked_before;
  p.before.info.snd_cwnd = cwnd_before;
  p.after.info.unacked = unacked_after;
  p.after.info.snd_cwnd = cwnd_after;
  return p;
}

TEST(Attribute, AFullBufferWithRoomInTheCongestionWindowIsTheSendBuffer) {
  // The window grew (slow start goes on while the flight's bursts reach half of it) but never held
  // the sender back: the buffer did.
  Attribution a = attribute(full_buffer(20, 51, 24, 67).before, full_buffer(20, 51, 24, 67).after);
  EXPECT_EQ(t(a, LimitCause::send_buffer), 100 * kMs);
  // Slow start: the flight fills the congestion window at the earlier sample: the network's.
  const Pair p = full_buffer(20, 20, 18, 51);
  a = attribute(p.before, p.after);
  EXPECT_EQ(t(a, LimitCause::send_buffer), 0);
  EXPECT_EQ(t(a, LimitCause::network), 100 * kMs);
}

TEST(ApplyEventLoss, TimedRecoveriesReplaceTheEstimate) {
  Pair p = sender(100'000, 0, 30'000);  // network 70 ms, send buffer 30 ms
  p.after.info.total_retrans = p.before.info.total_retrans + 7;  // estimate: 7 ms of loss
  Attribution a = attribute(p.before, p.after);
  ASSERT_EQ(t(a, LimitCause::loss), 7 * kMs);
  EXPECT_EQ(apply_event_loss(a, 0), 0);  // no recovery ended: the estimate goes
  EXPECT_EQ(t(a, LimitCause::loss), 0);
  EXPECT_EQ(t(a, LimitCause::network), 70 * kMs);
  EXPECT_EQ(apply_event_loss(a, 90 * kMs), 0);
  EXPECT_EQ(t(a, LimitCause::loss), 90 * kMs);
  EXPECT_EQ(t(a, LimitCause::network), 0);
  EXPECT_EQ(t(a, LimitCause::send_buffer), 10 * kMs);
  EXPECT_EQ(apply_event_loss(a, 150 * kMs), 50 * kMs);  // the interval's 100 ms at most
  EXPECT_EQ(sum(a), 100 * kMs);
}

TEST(Accumulate, AddsIntervals) {
  const Pair p = sender(80'000, 30'000, 20'000);
  Attribution total;
  accumulate(total, attribute(p.before, p.after));
  accumulate(total, attribute(p.before, p.after));
  EXPECT_EQ(total.role, Role::sender);
  EXPECT_EQ(total.interval_ns, 200 * kMs);
  EXPECT_EQ(t(total, LimitCause::receiver_window), 60 * kMs);
  EXPECT_EQ(total.bytes_acked, 1'000'000U);
  const Verdict v = judge(total, p.after);
  EXPECT_EQ(v.problem, LimitCause::receiver_window);
  EXPECT_EQ(v.severity, Severity::major);
  EXPECT_NE(v.fixes.front().find("SO_RCVBUF"), std::string::npos);
}

}  // namespace
}  // namespace ackstall::live
