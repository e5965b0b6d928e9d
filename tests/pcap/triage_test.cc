#include "ackstall/pcap/triage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ackstall/pcap/scan_file.h"

namespace ackstall::pcap {
namespace {

namespace fs = std::filesystem;

fs::path capture(const std::string& name) {
  return fs::path(ACKSTALL_SOURCE_DIR) / "tests" / "data" / "cause-captures" / (name + ".pcapng");
}

// The flows of several labelled captures as one busy capture's.
std::vector<FlowReport> flows_of(const std::vector<std::string>& names) {
  std::vector<FlowReport> flows;
  for (const auto& n : names) {
    auto s = scan_capture(capture(n).string(), ScanRequest{});
    EXPECT_TRUE(s) << n;
    if (!s) continue;
    for (auto& f : s->flows) flows.push_back(std::move(f));
  }
  return flows;
}

TEST(Triage, ProblemsFirstByTimeLostThenTheRestByBytes) {
  const auto flows = flows_of({"line", "quota-delack", "app-limited", "receiver-window", "sender-buffer"});
  const Triage t = triage(flows);
  ASSERT_EQ(t.rows.size() + t.tiny + t.no_data, flows.size());
  ASSERT_GE(t.problems(), 3u);  // the manifest's delayed_ack, receiver_window, send_buffer
  for (std::size_t i = 0; i + 1 < t.rows.size(); ++i) {
    const TriageRow& a = t.rows[i];
    const TriageRow& b = t.rows[i + 1];
    EXPECT_FALSE(!a.problem() && b.problem()) << "a healthy row before a problem at " << i;
    if (a.problem() && b.problem()) {
      EXPECT_GE(a.lost_ns, b.lost_ns);
    }
    if (!a.problem() && !b.problem()) {
      EXPECT_GE(a.bytes, b.bytes);
    }
  }
  for (const TriageRow& r : t.rows) {
    if (!r.problem()) {
      EXPECT_EQ(r.lost_ns, 0);
      continue;
    }
    // The time lost is the problem's own account in the judged direction's diagnosis.
    const Diagnosis g = diagnose(r.judged());
    ASSERT_EQ(g.problem, r.problem_cause);
    bool found = false;
    for (const CauseShare& a : g.accounts) {
      if (a.cause == *g.problem) {
        EXPECT_EQ(a.ns, r.lost_ns);
        found = true;
      }
    }
    EXPECT_TRUE(found);
    EXPECT_GT(r.lost_ns, 0);
    EXPECT_LE(r.lost_ns, r.duration_ns);
  }
}

TEST(Triage, JudgesTheDirectionWhoseProblemCostsMost) {
  const auto flows = flows_of({"quota-delack"});
  const Triage t = triage(flows);
  ASSERT_EQ(t.rows.size(), 1u);
  const TriageRow& r = t.rows[0];
  ASSERT_TRUE(r.problem());
  EXPECT_EQ(*r.problem_cause, core::LimitCause::delayed_ack);
  // The judged direction is the data direction, not the ACKs' (which carry no payload).
  for (const DirectionReport& d : r.flow->directions) EXPECT_GE(r.judged().bytes_sent, d.bytes_sent);
}

TEST(Triage, FoldsConnectionsTooSmallToJudge) {
  FlowReport tiny;
  tiny.key = make_flow_key({IpAddr(0x0a000001), 40000}, {IpAddr(0x0a000002), 80});
  DirectionReport d;
  d.data_segments = kTriageMinSegments - 1;
  d.bytes_sent = 900;
  tiny.directions.push_back(d);
  FlowReport empty;
  empty.key = make_flow_key({IpAddr(0x0a000001), 40001}, {IpAddr(0x0a000002), 80});
  std::vector<FlowReport> flows{tiny, empty};
  const Triage t = triage(flows);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_EQ(t.tiny, 1u);
  EXPECT_EQ(t.no_data, 1u);
  // One more segment and it is judged.
  flows[0].directions[0].data_segments = kTriageMinSegments;
  EXPECT_EQ(triage(flows).rows.size(), 1u);
}

}  // namespace
}  // namespace ackstall::pcap
