#include "ackstall/sim/experiment.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

TEST(Config, DefaultsAreTheSeedSetup) {
  const ExperimentConfig c;
  EXPECT_EQ(c.link.rate_bps, 100'000'000);
  EXPECT_EQ(c.link.framing_overhead, 38);
  EXPECT_EQ(c.sender.send_buffer.kind, SendBufferKind::afd);
  EXPECT_EQ(c.sender.send_buffer.size, 8192);
  EXPECT_FALSE(c.sender.ask_timestamps);
  EXPECT_TRUE(c.sender.accept_timestamps);
  EXPECT_EQ(c.receiver.ack.kind, AckPolicyKind::openbsd);
  EXPECT_EQ(c.receiver.ack.delack_timeout, Nanos::ms(200));
  EXPECT_FALSE(c.receiver.ack.ack_on_push);
  EXPECT_EQ(c.app.transmitter.writes, 30000);
  EXPECT_EQ(c.app.transmitter.write_len, 8192);
  EXPECT_TRUE(c.app.transmitter.nonblocking);
  EXPECT_EQ(c.app.transmitter.chunking, core::PolicyKind::none);
  EXPECT_EQ(c.initiator, Initiator::sender);
  EXPECT_TRUE(validate(c).has_value());
}

TEST(Config, ValidateNamesTheField) {
  ExperimentConfig c;
  c.link.rate_bps = 0;
  ASSERT_FALSE(validate(c).has_value());
  EXPECT_NE(validate(c).error().message().find("link.rate_bps"), std::string::npos);
  c = {};
  c.receiver.ack.ack_frequency = 0;
  EXPECT_NE(validate(c).error().message().find("receiver.ack.ack_frequency"), std::string::npos);
  c = {};
  c.app.transmitter.write_len = -1;
  EXPECT_NE(validate(c).error().message().find("app.transmitter.write_len"), std::string::npos);
  const auto run = run_experiment(c);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().message(), validate(c).error().message());
}

// scp's CPU cost per byte times a whole write (2^30 bytes at most) must fit int64 picoseconds:
// fuzz_simulation found 7.4e15 ps/byte overflowing it (UBSan, app_ttcp.cc), 2026-12-04.
TEST(Config, ScpCpuCostIsBounded) {
  ExperimentConfig c;
  c.app.scp.enabled = true;
  c.app.scp.sender_cpu_ps_per_byte = 1'000'000'000;  // 1 ms per byte: accepted
  c.app.scp.receiver_cpu_ps_per_byte = 1'000'000'000;
  c.app.transmitter.write_len = std::int64_t{1} << 30;
  c.app.transmitter.writes = 1;
  EXPECT_TRUE(validate(c).has_value());
  c.app.scp.sender_cpu_ps_per_byte = 7356711866666666;
  ASSERT_FALSE(validate(c).has_value());
  EXPECT_NE(validate(c).error().message().find("app.scp.sender_cpu_ps_per_byte"), std::string::npos);
  c.app.scp.sender_cpu_ps_per_byte = 0;
  c.app.scp.receiver_cpu_ps_per_byte = 1'000'000'001;
  EXPECT_NE(validate(c).error().message().find("app.scp.receiver_cpu_ps_per_byte"), std::string::npos);
}

// The keys of the lab's model are bounded so that no value can overflow the ns clock.
TEST(Config, LabModelKeysAreBounded) {
  const auto rejects = [](const ExperimentConfig& c, const char* key) {
    const auto v = validate(c);
    ASSERT_FALSE(v.has_value()) << key;
    EXPECT_NE(v.error().message().find(key), std::string::npos) << v.error().message();
  };
  ExperimentConfig c;
  c.link.burst = (std::int64_t{1} << 30) + 1;
  rejects(c, "link.burst");
  c.link.burst = 0;
  const auto delay = [](std::string_view text) { return *Delay::parse(text); };
  c.link.shaper_lateness = delay("quantiles(1us, 50us)");  // no token bucket to be late
  rejects(c, "link.shaper_lateness");
  c.link.burst = 3100;
  c.link.shaper_lateness = delay("quantiles(50us, 1us)");  // falling
  rejects(c, "link.shaper_lateness");
  c.link.shaper_lateness = delay("quantiles(1us, 1001ms)");  // above 1 s
  rejects(c, "link.shaper_lateness");
  c.link.shaper_lateness = delay("quantiles(1us)");  // one quantile is no distribution
  rejects(c, "link.shaper_lateness");
  c.link.shaper_lateness = delay("quantiles(0us, 7us, 1s)");  // up to 1 s, with a bucket
  EXPECT_TRUE(validate(c).has_value());
  c.link.data_lateness = delay("trace(3us)");  // both: the data frames' lag on top
  EXPECT_TRUE(validate(c).has_value());
  c.link.data_lateness = delay("trace(3us, 1001ms)");  // above 1 s
  rejects(c, "link.data_lateness");
  c.link.data_lateness = Delay({{.kind = DelayKind::trace, .points = {Nanos(-1)}}});
  rejects(c, "link.data_lateness");
  c.link.data_lateness = Delay({{.kind = DelayKind::trace, .points = std::vector<Nanos>(1'000'001, Nanos::zero())}});
  rejects(c, "link.data_lateness");
  c.link.data_lateness = delay("trace(3us)");
  c.link.shaper_lateness = Delay();
  c.link.burst = 0;  // no token bucket
  rejects(c, "link.data_lateness");
  c = {};
  c.receiver.ack.jiffy = Nanos::s(2);
  rejects(c, "receiver.ack.jiffy");
  c = {};
  c.app.receiver.read_wakeup = Delay({{.kind = DelayKind::rare, .ppm = 1'000'001}});
  rejects(c, "app.receiver.read_wakeup");
  c.app.receiver.read_wakeup = delay("1ppm * 1001s");
  rejects(c, "app.receiver.read_wakeup");
  c = {};
  c.app.transmitter.duration = Nanos(-1);
  rejects(c, "app.transmitter.duration");
  c = {};
  c.app.receiver.read_wakeup = delay("1ppm * quantiles(300us)");  // one quantile is no distribution
  rejects(c, "app.receiver.read_wakeup");
  c.app.receiver.read_wakeup = delay("1ppm * quantiles(300us, 200us)");  // falling
  rejects(c, "app.receiver.read_wakeup");
  c.app.receiver.read_wakeup = Delay({{.kind = DelayKind::quantiles, .points = std::vector<Nanos>(102, Nanos::us(1))}});
  rejects(c, "app.receiver.read_wakeup");
  c.app.transmitter.wakeup = Delay(std::vector<DelayTerm>(33, {.kind = DelayKind::constant, .value = Nanos::us(1)}));
  rejects(c, "app.transmitter.wakeup");  // at most 32 terms
  c = {};
  c.receiver.ack.ack_at_read = true;  // a rule of the Linux window: the default receiver is BSD's
  rejects(c, "receiver.ack.ack_at_read");
  c = {};
  c.link.burst = 1 << 30;
  c.receiver.ack.jiffy = Nanos::s(1);
  c.app.receiver.read_wakeup =
      delay("quantiles(8us, 12us, 56us) + 15us + 1000000ppm * (quantiles(10s, 10s) + 1000s + exp(1000s))");
  EXPECT_TRUE(validate(c).has_value());
}

TEST(Config, NamesRoundTrip) {
  for (auto k : {AckPolicyKind::openbsd, AckPolicyKind::bsd_tick, AckPolicyKind::freebsd,
                 AckPolicyKind::linux_2_6, AckPolicyKind::linux, AckPolicyKind::linux_pingpong,
                 AckPolicyKind::windows, AckPolicyKind::ns3})
    EXPECT_EQ(parse_ack_policy_kind(to_string(k)), k);
  for (auto k : {NagleKind::off, NagleKind::classic, NagleKind::minshall})
    EXPECT_EQ(parse_nagle_kind(to_string(k)), k);
  for (auto k : {SendBufferKind::afd, SendBufferKind::bsd, SendBufferKind::ns3})
    EXPECT_EQ(parse_send_buffer_kind(to_string(k)), k);
  EXPECT_EQ(parse_ack_policy_kind("linux-2.6"), AckPolicyKind::linux_2_6);
  EXPECT_FALSE(parse_ack_policy_kind("solaris").has_value());
}

TEST(Config, NameTablesAreInEnumOrderAndListed) {
  // The tables are indexed by enum value: a name must sit at its enum's index.
  EXPECT_EQ(to_string(AckPolicyKind::openbsd), "openbsd");
  EXPECT_EQ(to_string(AckPolicyKind::bsd_tick), "bsd-tick");
  EXPECT_EQ(to_string(AckPolicyKind::linux_2_6), "linux-2.6");
  EXPECT_EQ(to_string(AckPolicyKind::linux_pingpong), "linux-pingpong");
  EXPECT_EQ(to_string(AckPolicyKind::ns3), "ns3");
  EXPECT_EQ(to_string(NagleKind::minshall), "minshall");
  EXPECT_EQ(to_string(SendBufferKind::afd), "afd");
  EXPECT_EQ(to_string(ReceiveWindowKind::linux), "linux");
  EXPECT_EQ(to_string(SelectTeardown::sleep_loop), "sleep-loop");
  EXPECT_EQ(to_string(Initiator::receiver), "receiver");
  EXPECT_EQ(core::label_of(StallKind::select_teardown), "select-teardown");
  EXPECT_EQ(join_names(ack_policy_kind_names()),
            "openbsd, bsd-tick, freebsd, linux-2.6, linux, linux-pingpong, windows, ns3");
  EXPECT_EQ(join_names(nagle_kind_names()), "off, classic, minshall");
  EXPECT_EQ(join_names(send_buffer_kind_names()), "afd, bsd, ns3");
  EXPECT_EQ(join_names(receive_window_kind_names()), "bsd, linux, ns3");
  EXPECT_EQ(join_names(select_teardown_names()), "sleep-loop, event");
  EXPECT_EQ(join_names(initiator_names()), "sender, receiver");
  for (const std::string_view n : ack_policy_kind_names()) EXPECT_EQ(to_string(*parse_ack_policy_kind(n)), n);
  for (const std::string_view n : receive_window_kind_names())
    EXPECT_EQ(to_string(*parse_receive_window_kind(n)), n);
}

}  // namespace
}  // namespace ackstall::sim
