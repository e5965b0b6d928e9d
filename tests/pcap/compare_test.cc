#include "ackstall/pcap/compare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ackstall/pcap/scan_file.h"

namespace ackstall::pcap {
namespace {

std::vector<FlowReport> flows(const std::string& lab_capture) {
  const auto path = std::filesystem::path(ACKSTALL_SOURCE_DIR) / "tests" / "data" / "lab-captures" / lab_capture;
  auto s = scan_capture(path.string(), ScanRequest{});
  EXPECT_TRUE(s) << lab_capture;
  return s ? s->flows : std::vector<FlowReport>{};
}

// The lab's unpatched sender (15928-byte writes over an 8192-byte emulated AFD quota, a classic
// delayed-ACK receiver) and the same transfer with the seed's chunking: the stalls are gone.
TEST(Compare, TheLabsChunkingFixReadsAsStallsGone) {
  const Comparison c = compare(flows("classic-15928-unpatched-v4.a.pcapng"), flows("classic-15928-seed-v4.a.pcapng"));
  ASSERT_EQ(c.matched.size(), 1u);
  EXPECT_TRUE(c.only_before.empty());
  EXPECT_TRUE(c.only_after.empty());
  const ServiceComparison& m = c.matched[0];
  EXPECT_EQ(service_name(m.sender, m.receiver), "10.77.0.1 -> 10.77.0.2:5001");
  ASSERT_TRUE(m.problem.has_value());
  EXPECT_EQ(*m.problem, core::LimitCause::delayed_ack);
  EXPECT_EQ(m.verdict, CompareVerdict::gone);
  EXPECT_GT(m.before.share(core::LimitCause::delayed_ack), 0.5);
  // What is left is the transfer's last lone segment: one held ACK, no pattern, no problem.
  EXPECT_FALSE(m.after.problem.has_value());
  EXPECT_GT(m.after.goodput_bytes_per_s(), 5 * m.before.goodput_bytes_per_s());
}

TEST(Compare, TheSameCaptureTwiceIsUnchanged) {
  const auto f = flows("classic-15928-unpatched-v4.a.pcapng");
  const Comparison c = compare(f, f);
  ASSERT_EQ(c.matched.size(), 1u);
  EXPECT_EQ(c.matched[0].verdict, CompareVerdict::unchanged);
}

TEST(Compare, UnrelatedCapturesMatchNothing) {
  const Comparison c = compare(flows("classic-15928-unpatched-v4.a.pcapng"), flows("classic-15000-unpatched-v6.a.pcapng"));
  EXPECT_TRUE(c.matched.empty());
  EXPECT_EQ(c.only_before.size(), 1u);
  EXPECT_EQ(c.only_after.size(), 1u);
}

// The service is named by its data direction, whichever direction triage judged: the same
// capture with its directions listed the other way round still matches.
TEST(Compare, TheNameIsTheDataDirectionsWhicheverDirectionIsJudged) {
  auto before = flows("classic-15928-unpatched-v4.a.pcapng");
  auto after = flows("classic-15928-seed-v4.a.pcapng");
  ASSERT_EQ(after.size(), 1u);
  // An ACK direction that carried a few bytes too: still the data direction names the service.
  DirectionReport acks = after[0].directions[0];
  std::swap(acks.sender, acks.receiver);
  acks.bytes_acked = 10;
  after[0].directions.insert(after[0].directions.begin(), acks);
  const Comparison c = compare(before, after);
  ASSERT_EQ(c.matched.size(), 1u);
  EXPECT_EQ(service_name(c.matched[0].sender, c.matched[0].receiver), "10.77.0.1 -> 10.77.0.2:5001");
}

TEST(Compare, AProblemOnlyAfterIsNew) {
  const Comparison c = compare(flows("classic-15928-seed-v4.a.pcapng"), flows("classic-15928-unpatched-v4.a.pcapng"));
  ASSERT_EQ(c.matched.size(), 1u);
  EXPECT_EQ(c.matched[0].verdict, CompareVerdict::new_problem);
}

}  // namespace
}  // namespace ackstall::pcap
