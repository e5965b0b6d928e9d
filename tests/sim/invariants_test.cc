// The TCP endpoint's invariants (include/ackstall/sim/tcp_endpoint.h) checked after every event
// of whole simulations: the shipped scenarios (the seed's table, the ns-3 peer's and the lab's
// setups, shortened) and a grid of receivers, Nagle variants, send buffers and receive windows,
// plus lossy and zero-window runs. Debug builds also assert them inside the endpoint after every
// input; this test checks them in every build, and checks that the simulation's timers agree
// with what the endpoints asked for (invariants 3 and 4 are about the armed timers).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"
#include "simulation.h"

namespace ackstall::sim {
namespace {

constexpr TimerKind kTimers[] = {TimerKind::rexmt, TimerKind::delack, TimerKind::persist};

struct Checked {
  Summary summary;
  std::uint64_t events = 0;    // observed after the start
  bool persist_armed = false;  // some event left a persist timer armed (zero-window probing)
  bool delack_armed = false;   // some event left a delayed-ACK timer armed
};

// Checks every invariant after every event (simulation.h's debug hook); stops at the first
// failure, naming the event.
class InvariantChecker final : public EventObserver {
 public:
  explicit InvariantChecker(std::string what) : what_(std::move(what)) {}

  void after_event(const SimulationView& sim) override {
    if (failed_) return;
    for (int i = 0; i < 2; ++i) {
      const TcpEndpoint& ep = sim.endpoint(i);
      seen.persist_armed |= ep.timer_armed(TimerKind::persist);
      seen.delack_armed |= ep.timer_armed(TimerKind::delack);
      if (const char* v = ep.invariant_violation()) fail(sim, i, std::string("invariant ") + v);
      // Invariants 3 and 4 are about the armed timers: the engine's must be the requested ones.
      for (const TimerKind k : kTimers) {
        if (sim.timer_armed(i, k) != ep.timer_armed(k))
          fail(sim, i, "timer " + std::to_string(static_cast<int>(k)) + " differs from the endpoint's requests");
      }
    }
    // 1. The application reads exactly what arrived in order, never more than was written.
    const TcpEndpoint& rcv = sim.endpoint(kReceiverSide);
    if (sim.delivered() != rcv.counters().bytes_received - rcv.readable() ||
        sim.delivered() > sim.endpoint(kSenderSide).send_buffer().enqueued())
      fail(sim, kReceiverSide, "bytes read " + std::to_string(sim.delivered()));
    ++seen.events;
  }

  Checked seen;

 private:
  void fail(const SimulationView& sim, int side, const std::string& msg) {
    if (failed_) return;
    failed_ = true;
    ADD_FAILURE() << what_ << ": endpoint " << side << " after event " << sim.events() << " at "
                  << sim.now().count() << " ns: " << msg;
  }
  std::string what_;
  bool failed_ = false;
};

Checked run_checked(const ExperimentConfig& cfg, const std::string& what) {
  EXPECT_TRUE(validate(cfg)) << what;
  InvariantChecker checker(what);
  const Summary s = simulate(cfg, nullptr, &checker);
  Checked r = checker.seen;
  r.summary = s;
  EXPECT_TRUE(s.completed) << what;
  EXPECT_EQ(s.bytes_delivered, s.bytes_requested) << what;
  if (s.drops == 0) {
    EXPECT_EQ(s.rto_fires, 0u) << what << ": a clean link never needs the RTO";
  }
  EXPECT_EQ(s.events + 1, r.events) << what;  // observed after the start and every event
  return r;
}

TEST(Invariants, ShippedScenariosShortened) {
  const std::filesystem::path root = std::filesystem::path(ACKSTALL_SOURCE_DIR) / "examples";
  int n = 0;
  for (const char* dir : {"seed", "lab", "ns3"}) {
    for (const auto& e : std::filesystem::directory_iterator(root / dir)) {
      if (e.path().extension() != ".toml") continue;
      const std::vector<std::string> sets = {"app.transmitter.writes=40"};
      auto sc = scenario::load_scenario_file(e.path().string(), sets);
      ASSERT_TRUE(sc) << sc.error();
      const Checked r = run_checked(sc->config, e.path().filename().string());
      EXPECT_GT(r.events, 500u) << e.path();
      ++n;
    }
  }
  EXPECT_GE(n, 16);  // examples/seed (10), lab (4), ns3 (2)
}

TEST(Invariants, ReceiversNagleSendBuffersWindowsGrid) {
  bool delack = false;
  for (const AckPolicyKind ack :
       {AckPolicyKind::openbsd, AckPolicyKind::bsd_tick, AckPolicyKind::freebsd, AckPolicyKind::linux_2_6,
        AckPolicyKind::linux, AckPolicyKind::linux_pingpong, AckPolicyKind::windows, AckPolicyKind::ns3}) {
    for (const NagleKind nagle : {NagleKind::off, NagleKind::classic, NagleKind::minshall}) {
      for (const SendBufferKind sb : {SendBufferKind::afd, SendBufferKind::bsd, SendBufferKind::ns3}) {
        for (const ReceiveWindowKind rw : {ReceiveWindowKind::bsd, ReceiveWindowKind::linux, ReceiveWindowKind::ns3}) {
          ExperimentConfig c;
          c.receiver.ack.kind = ack;
          c.sender.nagle = nagle;
          c.sender.send_buffer.kind = sb;
          c.receiver.receive_window = rw;
          c.app.transmitter.writes = 12;
          c.app.transmitter.write_len = 7300;  // odd tails: Nagle and delayed ACKs meet
          delack |= run_checked(c, std::string(to_string(ack)) + "/" + std::string(to_string(nagle)) + "/" +
                             std::string(to_string(sb)) + "/" + std::string(to_string(rw)))
                        .delack_armed;
        }
      }
    }
  }
  EXPECT_TRUE(delack);
}

TEST(Invariants, BlockingChunkedJitteryAndReceiverInitiated) {
  ExperimentConfig c;
  c.app.transmitter.writes = 60;
  c.app.transmitter.nonblocking = false;  // KB214397 withheld completions
  c.app.transmitter.chunking = core::PolicyKind::seed;
  c.app.transmitter.wakeup = c.app.transmitter.wakeup.with({.kind = DelayKind::uniform, .value = Nanos::us(80)});
  run_checked(c, "blocking seed-chunked");
  c.initiator = Initiator::receiver;  // OpenBSD asks for timestamps, XP accepts
  c.sender.send_buffer.kb214397_literal = true;
  run_checked(c, "receiver-initiated");
}

// SO_SNDBUF unset (dynamic send buffering): the AFD quota moves with the ideal send backlog
// while sends are charged, on a LAN and a 50 ms path, cut as today's Cygwin and as robust.
TEST(Invariants, UnsetSendBufferFollowsTheIdealSendBacklog) {
  for (const Nanos prop : {Nanos::ns(25), Nanos::ms(25)}) {
    for (const core::PolicyKind cut : {core::PolicyKind::cygwin, core::PolicyKind::robust}) {
      ExperimentConfig c;
      c.sender.send_buffer.unset = true;
      c.sender.send_buffer.size = kCygwinUnsetWmem;
      c.receiver.rcvbuf = 1 << 20;
      c.link.prop_delay = prop;
      c.app.transmitter.chunking = cut;
      c.app.transmitter.writes = 40;
      c.app.transmitter.write_len = 131072;
      run_checked(c, std::string("unset ") + std::string(core::to_string(cut)) + " prop " +
                         std::to_string(prop.count()) + " ns");
    }
  }
}

TEST(Invariants, LossyLinkRetransmits) {
  ExperimentConfig c;
  c.sender.send_buffer = {SendBufferKind::bsd, 65536, false};
  c.receiver.rcvbuf = 65536;
  c.link.queue_limit_packets = 3;  // drops: fast retransmit, NewReno partial ACKs, RTO
  c.app.transmitter.writes = 150;
  for (const AckPolicyKind ack : {AckPolicyKind::openbsd, AckPolicyKind::linux, AckPolicyKind::ns3}) {
    c.receiver.ack.kind = ack;
    const Summary s = run_checked(c, "lossy " + std::string(to_string(ack))).summary;
    EXPECT_GT(s.drops, 0u);
    EXPECT_GT(s.retransmits, 0u);
  }
}

TEST(Invariants, SlowReaderClosesTheWindowPersistProbes) {
  ExperimentConfig c;
  c.sender.send_buffer = {SendBufferKind::bsd, 65536, false};
  c.sender.nagle = NagleKind::off;
  c.receiver.rcvbuf = 4096;
  c.app.receiver.read_len = 100;
  c.app.receiver.read_cost = Delay(Nanos::ms(2));  // the window closes and reopens slowly
  c.app.transmitter.writes = 4;
  for (const ReceiveWindowKind rw : {ReceiveWindowKind::bsd, ReceiveWindowKind::linux, ReceiveWindowKind::ns3}) {
    c.receiver.receive_window = rw;
    c.receiver.window_update_on_read = rw != ReceiveWindowKind::ns3;
    const bool persist = run_checked(c, "slow reader " + std::string(to_string(rw))).persist_armed;
    EXPECT_TRUE(persist || rw == ReceiveWindowKind::ns3) << to_string(rw);  // zero window probed
  }
}

TEST(Invariants, ScpPipelineBothTeardowns) {
  ExperimentConfig c;
  c.app.scp.enabled = true;
  c.app.scp.sender_cpu_ps_per_byte = 20000;
  c.app.scp.receiver_cpu_ps_per_byte = 20000;
  c.app.transmitter.writes = 30;
  for (const SelectTeardown t : {SelectTeardown::sleep_loop, SelectTeardown::event}) {
    c.app.scp.teardown = t;
    run_checked(c, "scp " + std::string(to_string(t)));
  }
}

}  // namespace
}  // namespace ackstall::sim
