// Validation of the simulator against measured figures, through the shipped scenario files:
// the seed's table (examples/seed), the ns-3 peer's assumptions (examples/ns3) and the
// real-kernel lab of docs/STACKS.md §7 (examples/lab). Bounds are the measured figures with
// the tolerances docs/VALIDATION.md states; the mechanisms are checked through stall counts.
#include <gtest/gtest.h>

#include <string>

#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

namespace ackstall {
namespace {

sim::Summary run(const std::string& rel) {
  auto sc = scenario::load_scenario_file(std::string(ACKSTALL_SOURCE_DIR) + "/examples/" + rel);
  EXPECT_TRUE(sc) << sc.error();
  if (!sc) return {};
  sim::Summary s = sim::run_experiment(sc->config).value();
  EXPECT_TRUE(s.completed) << rel;
  EXPECT_EQ(s.bytes_delivered, s.bytes_requested) << rel;
  EXPECT_EQ(s.rto_fires, 0u) << rel << ": a clean link must never need the RTO";
  return s;
}

TEST(SeedTable, UnpatchedStallsOnEveryWrite) {
  const auto s = run("seed/02-unpatched.toml");
  EXPECT_NEAR(s.goodput_mib_s, 0.04, 0.01);  // seed: 40 kbytes/s
  // One 200 ms delayed ACK per 8192-byte write (the odd tail segment ACKed alone).
  EXPECT_GE(s.delayed_acks, 29999u);
  EXPECT_GE(s.stalls.delayed_ack.time.seconds(), 0.19 * 29999);
}

TEST(SeedTable, PatchedRowsRunNearLineRate) {
  for (const char* row : {"seed/04-patched-l7300.toml", "seed/05-patched-l2920.toml",
                          "seed/06-patched-b32768.toml"}) {
    const auto s = run(row);
    EXPECT_GT(s.goodput_mib_s, 10.5) << row;  // seed: 10.9 - 11.1
    EXPECT_LE(s.goodput_mib_s, s.ceiling_mib_s) << row;
    EXPECT_EQ(s.delayed_acks, 0u) << row;
  }
}

TEST(SeedTable, PatchedDefaultsPayWakeUpLatency) {
  const auto s = run("seed/07-patched-defaults.toml");
  EXPECT_NEAR(s.goodput_mib_s, 9.3, 0.3);  // calibrated row (VALIDATION.md)
  EXPECT_EQ(s.delayed_acks, 0u);
  EXPECT_GT(s.stalls.wakeup.count, 29000u);
}

TEST(SeedTable, SelectFixRemovesPipeThreadSleep) {
  const auto before = run("seed/09-scp-openbsd-to-cygwin-before.toml");
  const auto after = run("seed/10-scp-openbsd-to-cygwin-after.toml");
  EXPECT_GT(after.goodput_mib_s, 3 * before.goodput_mib_s);  // seed: 1.5 -> 6.8
  EXPECT_GT(before.stalls.select_teardown.time.seconds(), 10 * after.stalls.select_teardown.time.seconds());
}

TEST(Ns3Assumptions, MatchesPeerFigures) {
  // peers/ns3/README.md: 0.0195 and 11.474 MiB/s (ns-3 3.37). Within 2 %.
  EXPECT_NEAR(run("ns3/ns3-sndbuf-8192.toml").goodput_mib_s, 0.0195, 0.0195 * 0.02);
  EXPECT_NEAR(run("ns3/ns3-sndbuf-65536.toml").goodput_mib_s, 11.474, 11.474 * 0.02);
}

TEST(LabPrediction, OddSegmentSendsStallEveryTime) {
  // §7: L=15928 (11 full segments, odd) stalled on every send: 0.36 MB/s.
  const auto s = run("lab/pingpong-l15928.toml");
  EXPECT_GE(s.delayed_acks, 1998u);
  EXPECT_NEAR(s.goodput_mib_s * 1.048576, 0.36, 0.05);
}

TEST(LabPrediction, EvenSegmentsAndSeedChunkingDoNotStall) {
  // §7: L=8192 and the seed's 5792 + 2400 chunking: no stalls, 11.5-11.7 MB/s for chunking.
  EXPECT_EQ(run("lab/pingpong-l8192.toml").delayed_acks, 0u);
  const auto chunked = run("lab/pingpong-seed-chunked.toml");
  EXPECT_EQ(chunked.delayed_acks, 0u);
  EXPECT_GT(chunked.goodput_mib_s * 1.048576, 11.3);
}

}  // namespace
}  // namespace ackstall
