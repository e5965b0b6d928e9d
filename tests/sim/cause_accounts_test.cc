// sim::CauseAccountant: the simulator's own cause accounts (sim/cause_accounts.h). Every moment of
// the transfer goes to one cause (the accounts sum to the duration), a marked stall's cause is the
// table's (core/stall_kind.h), and the flight goes to the path when it was full.
#include <gtest/gtest.h>

#include "ackstall/sim/cause_accounts.h"
#include "ackstall/sim/experiment.h"

#include <vector>

namespace ackstall::sim {
namespace {

using core::LimitCause;

double share(const CauseAccounts& a, LimitCause c) {
  return static_cast<double>(a.cause_ns[static_cast<std::size_t>(c)]) / static_cast<double>(a.duration_ns);
}

CauseAccounts accounts_of(const ExperimentConfig& cfg, Summary* summary = nullptr) {
  CauseAccountant own(cfg.stall_threshold);
  const auto s = run_experiment(cfg, &own);
  EXPECT_TRUE(s);
  if (summary && s) *summary = *s;
  return own.finish();
}

TEST(CauseAccounts, TheSeedsStallIsTheDelayedAck) {
  ExperimentConfig cfg;  // the seed's unpatched setup: every write waits on a held ACK
  cfg.app.transmitter.writes = 200;
  Summary s;
  const CauseAccounts a = accounts_of(cfg, &s);
  std::int64_t sum = 0;
  for (std::int64_t t : a.cause_ns) sum += t;
  EXPECT_EQ(sum, a.duration_ns);
  // From the first data segment to the last ACK: within the run's span from the SYN.
  EXPECT_GT(a.duration_ns, s.duration.count() * 95 / 100);
  EXPECT_LE(a.duration_ns, s.duration.count());
  EXPECT_GT(share(a, LimitCause::delayed_ack), 0.95);
  EXPECT_GE(a.stalls, 190u);
  EXPECT_GT(a.rtt_floor_ns, 0);
}

TEST(CauseAccounts, APatchedSenderFillsThePath) {
  ExperimentConfig cfg;
  cfg.app.transmitter.writes = 2000;
  cfg.sender.send_buffer.size = 65536;  // the seed's best row: a 64 KiB buffer, the link full
  cfg.app.transmitter.nonblocking = false;
  const CauseAccounts a = accounts_of(cfg);
  EXPECT_GT(share(a, LimitCause::network), 0.95);
  EXPECT_EQ(a.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)], 0);
  EXPECT_EQ(a.stalls, 0u);
}

// A sink that hands each WireFrame and stall on to an accountant: through it the simulator reports
// frames as to any sink (the tee of `ackstall sim --causes check`, a pcap, a plot), not through its
// direct feed of an accountant alone (simulation.cc, CauseAccountant::on_wire).
class Forward final : public TraceSink {
 public:
  explicit Forward(CauseAccountant& to) : to_(to) {}
  void on_frame(const WireFrame& f) override { to_.on_frame(f); }
  void on_stall(const StallMarker& m) override { to_.on_stall(m); }

 private:
  CauseAccountant& to_;
};

void expect_same(const CauseAccounts& a, const CauseAccounts& b) {
  for (std::size_t c = 0; c < a.cause_ns.size(); ++c) EXPECT_EQ(a.cause_ns[c], b.cause_ns[c]) << "cause " << c;
  EXPECT_EQ(a.duration_ns, b.duration_ns);
  EXPECT_EQ(a.rtt_floor_ns, b.rtt_floor_ns);
  EXPECT_EQ(a.idle_periods, b.idle_periods);
  EXPECT_EQ(a.stalls, b.stalls);
  EXPECT_EQ(a.bytes_acked, b.bytes_acked);
}

// The simulator feeds an accountant that is its only sink straight from each segment, no WireFrame
// built (docs/BENCHMARKS.md "Issue 41: the simulator's own causes"): the same accounts, to the
// nanosecond, as from the frames it reports to any other sink. Over runs that take each path of
// on_wire: stalls on delayed ACKs, a full path, drops (a dropped frame is skipped), a sender's host
// cost (its frames stamped after they are reported: held for time order), a receiver's late stack.
TEST(CauseAccounts, TheDirectFeedCountsAsTheFrames) {
  std::vector<ExperimentConfig> runs;
  ExperimentConfig seed;  // the seed's unpatched setup
  seed.app.transmitter.writes = 200;
  runs.push_back(seed);
  ExperimentConfig full = seed;
  full.app.transmitter.writes = 2000;
  full.sender.send_buffer.size = 65536;
  full.app.transmitter.nonblocking = false;
  runs.push_back(full);
  ExperimentConfig drops = full;
  drops.link.queue_limit_packets = 3;
  runs.push_back(drops);
  ExperimentConfig host = full;
  host.sender.per_segment_cost = Delay(Nanos::us(7));
  host.receiver.stack_latency = Delay(Nanos::us(900));
  runs.push_back(host);
  ExperimentConfig nodelay = seed;
  nodelay.sender.nagle = NagleKind::off;
  runs.push_back(nodelay);
  std::uint64_t dropped = 0;
  for (const ExperimentConfig& cfg : runs) {
    CauseAccountant direct(cfg.stall_threshold), framed(cfg.stall_threshold);
    Forward forward(framed);
    const auto a = run_experiment(cfg, &direct);
    const auto b = run_experiment(cfg, &forward);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->events, b->events);  // the same run
    dropped += a->drops;
    const CauseAccounts x = direct.finish(), y = framed.finish();
    EXPECT_GT(x.duration_ns, 0);
    expect_same(x, y);
  }
  EXPECT_GT(dropped, 0u);  // the drops' run dropped frames
}

// A frame as the simulator reports it (WireFrame): `at_ms` its stamp at the sender's host (a
// receiver's frame: its arrival, reported 0.9 ms earlier, when it starts to leave).
WireFrame frame(Direction dir, double at_ms, std::uint32_t seq, std::uint32_t ack, std::uint8_t flags,
                std::uint32_t len = 0) {
  const auto ns = [](double ms) { return Nanos(static_cast<std::int64_t>(ms * 1e6)); };
  WireFrame f;
  f.dir = dir;
  const bool from_sender = dir == Direction::sender_to_receiver;
  f.time = from_sender ? ns(at_ms) : ns(at_ms - 0.9);
  f.arrival = from_sender ? ns(at_ms + 0.9) : ns(at_ms);
  f.reported = f.time;
  f.seq = seq;
  f.ack = ack;
  f.flags = flags;
  f.window = 65535;
  f.payload_len = len;
  return f;
}

// A wait's cause is the marked stall over it when the stall is reported within a threshold of
// the wait's end, though the events after it are taken at once: the stall (reported here after a
// later frame) decides; reported after the threshold, it comes too late and the late ACK is the
// network's (sim/cause_accounts.h: "judged a threshold after they end").
CauseAccounts late_ack_with_stall_reported_at(double report_ms) {
  using enum Direction;
  constexpr auto syn = tcp_flag::syn, ack = tcp_flag::ack, psh = tcp_flag::psh;
  CauseAccountant own(std::chrono::milliseconds(20));
  const StallMarker held{StallKind::delayed_ack, Nanos(4'500'000), Nanos(104'000'000)};
  std::vector<WireFrame> frames = {
      frame(sender_to_receiver, 0, 1000, 0, syn),
      frame(receiver_to_sender, 1, 5000, 1001, syn | ack),
      frame(sender_to_receiver, 1, 1001, 5001, ack),
      frame(sender_to_receiver, 2, 1001, 5001, ack | psh, 1000),
      frame(receiver_to_sender, 3, 5001, 2001, ack),  // the floor: 1 ms
      frame(sender_to_receiver, 4, 2001, 5001, ack | psh, 1000),
      frame(receiver_to_sender, 105, 5001, 3001, ack),  // 100 ms late
      frame(sender_to_receiver, 106, 3001, 5001, ack | psh, 1000),
      frame(receiver_to_sender, 107, 5001, 4001, ack),
      frame(receiver_to_sender, 131, 5001, 4001, ack),  // the first frame a threshold past the late ACK
      frame(sender_to_receiver, 200, 4001, 5001, ack | psh, 1000),
      frame(receiver_to_sender, 201, 5001, 5001, ack),
  };
  bool stalled = false;
  for (const WireFrame& f : frames) {
    if (!stalled && f.reported.count() > static_cast<std::int64_t>(report_ms * 1e6)) {
      own.on_stall(held);
      stalled = true;
    }
    own.on_frame(f);
  }
  if (!stalled) own.on_stall(held);
  return own.finish();
}

TEST(CauseAccounts, AStallReportedWithinTheThresholdDecidesTheWait) {
  const CauseAccounts in_time = late_ack_with_stall_reported_at(110);  // after the ACK and a frame past it
  EXPECT_EQ(in_time.stalls, 1u);
  // From the last data sent (4 ms) and the floor (1 ms) to the late ACK (105 ms).
  EXPECT_EQ(in_time.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)], 100'000'000);
  const CauseAccounts too_late = late_ack_with_stall_reported_at(150);  // 45 ms after the ACK
  EXPECT_EQ(too_late.stalls, 1u);
  EXPECT_EQ(too_late.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)], 0);
  EXPECT_GE(too_late.cause_ns[static_cast<std::size_t>(LimitCause::network)], 100'000'000);
}

TEST(CauseAccounts, NothingSentNothingAccounted) {
  CauseAccountant own(std::chrono::milliseconds(20));
  const CauseAccounts a = own.finish();
  EXPECT_EQ(a.duration_ns, 0);
  EXPECT_EQ(a.bytes_acked, 0);
}

}  // namespace
}  // namespace ackstall::sim
