// The simulation's wiring (src/sim/simulation.cc) observed after every event: the hosts' per-frame
// delays (TcpProfile::stack_latency, per_segment_cost) drawn per frame keep the frames in order.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "ackstall/sim/experiment.h"
#include "simulation.h"

namespace ackstall::sim {
namespace {

// The frames from the sender to the receiver that reached the wire, in the order they left.
class ToReceiver final : public TraceSink {
 public:
  void on_frame(const WireFrame& f) override {
    if (f.dir == Direction::sender_to_receiver && !f.dropped) frames.push_back(f);
  }
  std::vector<WireFrame> frames;
};

// When the receiver's rcv_nxt first reached each value: when its stack handled the frame.
class RcvNxt final : public EventObserver {
 public:
  void after_event(const SimulationView& sim) override {
    const std::int64_t n = sim.endpoint(kReceiverSide).rcv_nxt();
    first_seen.try_emplace(n, sim.now());
  }
  std::map<std::int64_t, Nanos> first_seen;
};

ExperimentConfig short_run() {
  ExperimentConfig c;
  c.app.transmitter.writes = 40;
  return c;
}

Delay parse(const char* text) { return Delay::parse(text).value(); }

// A trace draws no random number: every other frame to the receiver waits 500 us in its stack,
// the next one none. The one behind a long draw is handled with it, never before it: each frame
// is handled at max(the previous frame's handling, its arrival + its draw).
TEST(Simulation, StackLatencyDrawsKeepFramesInArrivalOrder) {
  ExperimentConfig c = short_run();
  c.receiver.stack_latency = parse("trace(500us, 0us)");
  ToReceiver trace;
  RcvNxt seen;
  const Summary s = simulate(c, &trace, &seen);
  ASSERT_TRUE(s.completed);
  ASSERT_FALSE(trace.frames.empty());
  const std::uint32_t iss = trace.frames.front().seq;  // the SYN
  Nanos handled = Nanos::zero();
  int held_back = 0, checked = 0;
  for (std::size_t k = 0; k < trace.frames.size(); ++k) {
    const WireFrame& f = trace.frames[k];
    const Nanos own = f.arrival + (k % 2 == 0 ? Nanos::us(500) : Nanos::zero());
    if (own < handled) ++held_back;
    handled = max(handled, own);
    if (f.payload_len == 0 || f.retransmit) continue;
    const std::int64_t end = static_cast<std::int64_t>(f.seq - iss) + f.payload_len +
                             ((f.flags & tcp_flag::fin) != 0 ? 1 : 0);
    const auto it = seen.first_seen.find(end);
    ASSERT_NE(it, seen.first_seen.end()) << "frame " << k;
    EXPECT_EQ(it->second, handled) << "frame " << k << " handled out of its arrival order";
    ++checked;
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(held_back, 50);   // the case this is about: a short draw behind a long one
}

// A random stack_latency or per_segment_cost: drawn from the hosts' own stream, so the same seed
// gives the same run and another seed another; the frames to the receiver leave the sender in
// order (their handling order under random draws: StackLatencyDrawsKeepFramesInArrivalOrder).
TEST(Simulation, RandomHostCostsAreDeterministicPerSeed) {
  ExperimentConfig c = short_run();
  c.receiver.stack_latency = parse("30us + exp(100us)");
  c.sender.stack_latency = parse("quantiles(20us, 60us, 400us)");
  c.sender.per_segment_cost = parse("exp(5us)");
  ToReceiver a, b;
  const Summary first = simulate(c, &a, nullptr);
  const Summary again = simulate(c, &b, nullptr);
  ASSERT_TRUE(first.completed);
  EXPECT_EQ(first.duration, again.duration);
  EXPECT_EQ(first.events, again.events);
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (std::size_t k = 1; k < a.frames.size(); ++k) {
    EXPECT_LE(a.frames[k - 1].time, a.frames[k].time);
    EXPECT_EQ(a.frames[k].time, b.frames[k].time);
  }
  c.seed = 2;
  EXPECT_NE(simulate(c, nullptr, nullptr).duration, first.duration);
  ExperimentConfig constant = short_run();
  EXPECT_NE(simulate(constant, nullptr, nullptr).duration, first.duration);
}

// A constant Delay is the plain duration it replaced: the same run, and no draw from the hosts'
// stream (so adding a random term elsewhere keeps the rest of the run's draws).
TEST(Simulation, ConstantHostCostsDrawNothing) {
  ExperimentConfig c = short_run();
  c.receiver.stack_latency = parse("60us");
  c.sender.per_segment_cost = parse("2400ns");
  ExperimentConfig same = short_run();
  same.sender.per_segment_cost = Delay(Nanos::ns(2400));
  const Summary a = simulate(c, nullptr, nullptr), b = simulate(same, nullptr, nullptr);
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(c.receiver.stack_latency, ExperimentConfig{}.receiver.stack_latency);
  // Beside a random stack_latency (the hosts' stream), a constant per_segment_cost gives the run a
  // one-value trace gives, and a trace draws nothing: had the constant drawn, the receiver's
  // draws would have shifted.
  ExperimentConfig constant = short_run(), traced = short_run();
  constant.receiver.stack_latency = traced.receiver.stack_latency = parse("exp(100us)");
  constant.sender.per_segment_cost = parse("2400ns");
  traced.sender.per_segment_cost = parse("trace(2400ns)");
  ToReceiver x, y;
  const Summary cs = simulate(constant, &x, nullptr), ts = simulate(traced, &y, nullptr);
  EXPECT_EQ(cs.duration, ts.duration);
  ASSERT_EQ(x.frames.size(), y.frames.size());
  for (std::size_t k = 0; k < x.frames.size(); ++k) EXPECT_EQ(x.frames[k].time, y.frames[k].time) << k;
}

}  // namespace
}  // namespace ackstall::sim
