// analysis/capture_scenario.h: a capture turned into a scenario the simulator loads, with the
// capture's own figures (the cause captures of tests/data/cause-captures, manifest.json).
#include "ackstall/analysis/capture_scenario.h"

#include <gtest/gtest.h>

#include <string>

#include "ackstall/scenario/scenario.h"

namespace ackstall::analysis {
namespace {

pcap::FileScan scan_of(const std::string& name) {
  auto s = pcap::scan_file(std::string(ACKSTALL_SOURCE_DIR) + "/tests/data/cause-captures/" + name);
  EXPECT_TRUE(s) << (s ? "" : s.error().message());
  return s ? *s : pcap::FileScan{};
}

sim::ExperimentConfig config_of(const pcap::FileScan& scan) {
  const auto toml = scan_scenario_toml(scan);
  EXPECT_TRUE(toml) << (toml ? "" : toml.error().message());
  if (!toml) return {};
  auto sc = scenario::parse_scenario(*toml, "the emitted scenario", {});
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message());
  return sc ? sc->config : sim::ExperimentConfig{};
}

// Delayed-ACK stalls at a per-send quota as a rule: an afd quota at the in-flight limit, the
// capture's write, a receiver whose timer fits the ~40 ms hold.
TEST(CaptureScenario, AQuotaStalledOnDelayedAcksAsARule) {
  const auto scan = scan_of("quota-delack.pcapng");
  const auto cfg = config_of(scan);
  EXPECT_EQ(cfg.sender.send_buffer.kind, sim::SendBufferKind::afd);
  EXPECT_EQ(cfg.sender.send_buffer.size, 5792);
  EXPECT_EQ(cfg.app.transmitter.write_len, 15928);
  EXPECT_EQ(cfg.app.transmitter.writes, 20);
  EXPECT_EQ(cfg.sender.mss, 1460);
  EXPECT_FALSE(cfg.receiver.ack.ack_on_push);
  EXPECT_TRUE(scenario_caveats(scan).empty());
}

// No stalls: a byte-freed buffer holding the flight and a write, and a receiver that ACKs on
// PSH (a stall-free capture says no more).
TEST(CaptureScenario, AStallFreeCaptureInventsNoStall) {
  const auto cfg = config_of(scan_of("line.pcapng"));
  EXPECT_EQ(cfg.sender.send_buffer.kind, sim::SendBufferKind::bsd);
  EXPECT_GT(cfg.sender.send_buffer.size, cfg.app.transmitter.write_len);
  EXPECT_TRUE(cfg.receiver.ack.ack_on_push);
}

TEST(CaptureScenario, NoDataNoScenario) {
  const pcap::FileScan empty;
  EXPECT_FALSE(scan_scenario_toml(empty));
  EXPECT_TRUE(scenario_caveats(empty).empty());
}

}  // namespace
}  // namespace ackstall::analysis
