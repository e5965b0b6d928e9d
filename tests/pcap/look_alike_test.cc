// Causes the wire cannot tell apart (issue 37, look_alike.h): a per-send quota and Nagle, both
// holding a write's short tail for the delayed ACK, are reported as looking alike, with the check
// that separates them and the fixes that cover both first; a request in two small pieces (less
// than a segment in flight: Nagle alone) is not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/look_alike.h"
#include "ackstall/pcap/stall_scanner.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;

DirectionReport scan_client(const std::vector<TcpPacket>& packets) { return testing::scan_client_direction(packets); }

// Writes of FULL full segments and a TAIL-byte tail over a LAN; the full ones ACKed in pairs at
// once, the tail sent only once they are all ACKed and its own ACK held 200 ms.
std::vector<TcpPacket> tail_held(int writes, int full, std::uint32_t tail) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int w = 0; w < writes; ++w) {
    for (int i = 0; i < full; ++i) {
      v.push_back(c.data(t, 1448));
      if (i % 2 == 1 || i + 1 == full) v.push_back(c.ack(t + 20 * kUs, c.bytes_sent()));
      t += 123 * kUs;
    }
    t += 200 * kUs;  // the tail leaves once the last ACK is in, not a frame time after the segment before
    v.push_back(c.data(t, tail, true));
    t += 200 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
  }
  return v;
}

bool first_fix_is_nodelay(const Diagnosis& g) {
  return !g.fixes.empty() && g.fixes.front().find("TCP_NODELAY") != std::string::npos;
}

TEST(LookAlike, AQuotaAndNagleHoldingATailLookAlike) {
  // 4 full segments in flight, then the tail: a per-send quota or Nagle. "fix 1: disable Nagle
  // (TCP_NODELAY)" before, which a quota survives.
  const DirectionReport d = scan_client(tail_held(12, 4, 700));
  const Diagnosis g = diagnose(d);
  ASSERT_EQ(g.problem, core::LimitCause::delayed_ack) << g.mechanism;
  ASSERT_GT(d.nagle_holds, 0u);
  EXPECT_TRUE(quota_or_nagle(d, g).has_value());
  EXPECT_NE(g.mechanism.find("look alike"), std::string::npos) << g.mechanism;
  EXPECT_NE(g.mechanism.find("rerun with TCP_NODELAY"), std::string::npos) << g.mechanism;
  EXPECT_NE(g.mechanism.find("ackstall probe --ack-test"), std::string::npos) << g.mechanism;
  EXPECT_NE(g.mechanism.find("ss -tin"), std::string::npos) << g.mechanism;
  EXPECT_FALSE(first_fix_is_nodelay(g)) << g.fixes.front();
  EXPECT_NE(g.fixes.back().find("if the rerun with TCP_NODELAY shows no stall"), std::string::npos) << g.fixes.back();
}

TEST(LookAlike, SmallPiecesUnderASegmentAreNagleAlone) {
  // A request in two pieces, the first 400 bytes: no quota holds less than a segment.
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int r = 0; r < 12; ++r) {
    v.push_back(c.data(t, 400));
    t += 40 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
    v.push_back(c.data(t, 300, true));
    t += 40 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
  }
  const DirectionReport d = scan_client(v);
  const Diagnosis g = diagnose(d);
  ASSERT_EQ(g.problem, core::LimitCause::delayed_ack) << g.mechanism;
  EXPECT_FALSE(quota_or_nagle(d, g).has_value()) << g.mechanism;
  EXPECT_EQ(g.mechanism.find("look alike"), std::string::npos) << g.mechanism;
  EXPECT_TRUE(first_fix_is_nodelay(g)) << (g.fixes.empty() ? std::string("no fix") : g.fixes.front());
}

}  // namespace
}  // namespace ackstall::pcap
