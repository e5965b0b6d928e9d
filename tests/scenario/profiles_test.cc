#include "ackstall/scenario/profiles.h"

#include <gtest/gtest.h>

namespace ackstall::scenario {
namespace {

TEST(Profiles, AllNamedInTheIssueExistAndValidate) {
  for (const char* name : {"winxp", "openbsd-3.9", "bsd-tick", "freebsd-6", "linux-2.6", "linux",
                           "linux-pingpong", "windows", "ns3"}) {
    const NamedProfile* p = find_profile(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_FALSE(p->sources.empty()) << name;
    sim::ExperimentConfig c;
    c.receiver = p->make();
    EXPECT_TRUE(sim::validate(c)) << name << ": " << sim::validate(c).error().message();
  }
  EXPECT_EQ(find_profile("solaris"), nullptr);
}

TEST(Profiles, DistinguishingRules) {
  EXPECT_EQ(find_profile("openbsd-3.9")->make().ack.kind, sim::AckPolicyKind::openbsd);
  EXPECT_EQ(find_profile("freebsd-6")->make().ack.delack_timeout, sim::Nanos::ms(100));
  EXPECT_EQ(find_profile("bsd-tick")->make().ack.kind, sim::AckPolicyKind::bsd_tick);
  EXPECT_EQ(find_profile("linux-pingpong")->make().ack.kind, sim::AckPolicyKind::linux_pingpong);
  EXPECT_EQ(find_profile("winxp")->make().send_buffer.kind, sim::SendBufferKind::afd);
  EXPECT_FALSE(find_profile("winxp")->make().ask_timestamps);
  EXPECT_TRUE(find_profile("winxp")->make().accept_timestamps);
  EXPECT_FALSE(find_profile("ns3")->make().window_update_on_read);
}

TEST(Profiles, LinkPresets) {
  const auto eth = find_link_preset("ethernet-100baset")->make();
  EXPECT_EQ(eth.framing_overhead, 38);
  const auto ppp = find_link_preset("ppp-ns3")->make();
  EXPECT_EQ(ppp.framing_overhead, 2);
  EXPECT_EQ(ppp.prop_delay, sim::Nanos::us(50));
}

}  // namespace
}  // namespace ackstall::scenario
