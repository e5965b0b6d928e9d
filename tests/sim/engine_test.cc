#include "ackstall/sim/engine.h"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <utility>
#include <vector>

namespace ackstall::sim {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.schedule(Nanos(30), 1);
  q.schedule(Nanos(10), 2);
  q.schedule(Nanos(20), 3);
  q.schedule(Nanos(10), 4);  // same time as kind 2, scheduled later
  q.schedule(Nanos(10), 5);
  std::vector<std::uint32_t> kinds;
  Nanos last = Nanos::zero();
  while (!q.empty()) {
    const Event e = q.pop();
    EXPECT_GE(e.at, last);
    EXPECT_EQ(q.now(), e.at);
    last = e.at;
    kinds.push_back(e.kind);
  }
  EXPECT_EQ(kinds, (std::vector<std::uint32_t>{2, 4, 5, 3, 1}));
}

TEST(EventQueue, ManyTiesKeepInsertionOrder) {
  EventQueue q;
  for (std::uint32_t i = 0; i < 1000; ++i) q.schedule(Nanos(i % 7), i);
  std::uint32_t prev_kind = 0;
  Nanos prev_t = Nanos(-1);
  while (!q.empty()) {
    const Event e = q.pop();
    if (e.at == prev_t) {
      EXPECT_GT(e.kind, prev_kind);
    }
    prev_t = e.at;
    prev_kind = e.kind;
  }
}

TEST(EventQueue, ScheduleDuringRunAtNowRunsAfterPending) {
  EventQueue q;
  q.schedule(Nanos(5), 1);
  q.schedule(Nanos(5), 2);
  Event e = q.pop();
  EXPECT_EQ(e.kind, 1u);
  q.schedule(q.now(), 3);  // same instant, inserted later than kind 2
  EXPECT_EQ(q.pop().kind, 2u);
  EXPECT_EQ(q.pop().kind, 3u);
}

// Drains `q`, handing every event of `t` (kind 9) to it; returns the times it fired.
std::vector<std::int64_t> fire_times(EventQueue& q, Timer& t) {
  std::vector<std::int64_t> fired;
  while (!q.empty()) {
    const Event e = q.pop();
    if (e.kind == 9 && t.on_event(q, e)) fired.push_back(q.now().count());
  }
  return fired;
}

TEST(Timer, FiresOnceAtTheLastArmedTime) {
  EventQueue q;
  Timer t;
  EXPECT_FALSE(t.armed());
  t.arm(q, Nanos(100), 9, 0);
  t.arm(q, Nanos(300), 9, 0);  // moved later: nothing new queued
  EXPECT_EQ(q.size(), 1u);
  t.arm(q, Nanos(200), 9, 0);  // still later than the queued event
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(fire_times(q, t), std::vector<std::int64_t>{200});
  EXPECT_FALSE(t.armed());
}

TEST(Timer, MovedEarlierOrCancelled) {
  EventQueue q;
  Timer t;
  t.arm(q, Nanos(100), 9, 0);
  t.arm(q, Nanos(50), 9, 0);  // earlier: queued now, the first event goes stale
  EXPECT_EQ(fire_times(q, t), std::vector<std::int64_t>{50});
  EXPECT_EQ(q.now(), Nanos(100));  // the stale event popped too
  t.arm(q, Nanos(180), 9, 0);
  t.cancel();
  EXPECT_FALSE(t.armed());
  EXPECT_TRUE(fire_times(q, t).empty());
  t.arm(q, Nanos(190), 9, 0);  // re-armed after a cancel
  EXPECT_EQ(fire_times(q, t), std::vector<std::int64_t>{190});
}

// The lazy timer against the eager reference (every arm queues an event carrying a generation;
// stale generations are skipped): a random program of plain events, arms, moves and cancels
// must see the same sequence of (time, what) whichever timer it uses — ties included.
TEST(Timer, PopsInExactlyTheOrderOfEagerScheduling) {
  struct Eager {
    Nanos at = Nanos::never();
    std::uint64_t gen = 0;
  };
  constexpr int kTimers = 3;
  const auto run = [](bool lazy, std::uint64_t seed) {
    EventQueue q;
    Rng rng(seed);
    std::array<Timer, kTimers> timers;
    std::array<Eager, kTimers> eager;
    std::vector<std::pair<std::int64_t, std::uint32_t>> log;  // (time, what): what = kind*16+tag
    const auto act = [&] {  // a random action, times on a coarse grid so that ties are common
      const std::uint64_t r = rng.below(10);
      const Nanos at = q.now() + Nanos(static_cast<std::int64_t>(rng.below(8)) * 10);
      const auto k = static_cast<std::uint32_t>(rng.below(kTimers));
      if (r < 4) {
        q.schedule(at, 1, static_cast<std::uint32_t>(rng.below(4)));
      } else if (r < 9) {
        if (lazy) {
          timers[k].arm(q, at, 9, k);
        } else {
          eager[k].at = at;
          q.schedule(at, 9, k, ++eager[k].gen);
        }
      } else if (lazy) {
        timers[k].cancel();
      } else {
        eager[k].at = Nanos::never();
        ++eager[k].gen;
      }
    };
    for (int i = 0; i < 20; ++i) act();
    while (!q.empty() && log.size() < 5000) {
      const Event e = q.pop();
      bool delivered = e.kind != 9;
      if (e.kind == 9 && lazy) delivered = timers[e.tag].on_event(q, e);
      if (e.kind == 9 && !lazy && e.arg == eager[e.tag].gen && !eager[e.tag].at.is_never()) {
        eager[e.tag].at = Nanos::never();
        delivered = true;
      }
      if (!delivered) continue;
      log.emplace_back(q.now().count(), e.kind * 16 + e.tag);
      for (int n = static_cast<int>(rng.below(3)); n >= 0; --n) act();
    }
    return log;
  };
  std::size_t delivered = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    const auto eager_log = run(false, seed);
    ASSERT_EQ(run(true, seed), eager_log);
    delivered += eager_log.size();
  }
  EXPECT_GT(delivered, 200u * 2000u);  // most programs run to the 5000-event bound
}

TEST(Rng, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    (void)c;
  }
  Rng d(42), e(43);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += d.next() == e.next();
  EXPECT_LT(same, 2);
}

TEST(Rng, BelowStaysInRangeAndCoversIt) {
  Rng r(7);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 10000; ++i) {
    const auto v = r.below(10);
    ASSERT_LT(v, 10u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(r.uniform(Nanos::zero()), Nanos::zero());
  EXPECT_LT(r.uniform(Nanos(5)), Nanos(5));
}

TEST(Ring, FifoAcrossGrowth) {
  Ring<int> ring;
  int next_out = 0;
  for (int i = 0; i < 1000; ++i) {
    ring.push_back(i);
    if (i % 3 == 0) {
      EXPECT_EQ(ring.front(), next_out++);
      ring.pop_front();
    }
  }
  while (!ring.empty()) {
    EXPECT_EQ(ring.front(), next_out++);
    ring.pop_front();
  }
  EXPECT_EQ(next_out, 1000);
}

}  // namespace
}  // namespace ackstall::sim
