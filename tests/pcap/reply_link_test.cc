// Request/response (issue 37, src/pcap/reply_link.h, pcap/peer_stall.h): a direction that waits
// on its peer's stall says which stall, and the stalled direction says whom it holds up; a wait
// on the peer's own application latency, or a wait that does not overlap the peer's stall, is
// not linked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/stall_scanner.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;
using core::LimitCause;

struct Both {
  DirectionReport client, server;  // the requests' direction, the responses'
};

Both scan_both(const std::vector<TcpPacket>& packets) {
  StallScanner s;
  std::uint64_t frame = 0;
  for (const auto& p : packets) s.add(p, {p.src.addr, p.src.port}, {p.dst.addr, p.dst.port}, ++frame, 64);
  Both b;
  int found = 0;
  for (const auto& f : s.report()) {
    for (const auto& d : f.directions) {
      (d.sender.port == 40000 ? b.client : b.server) = d;
      ++found;
    }
  }
  EXPECT_EQ(found, 2);
  return b;
}

// REQUESTS turns appended to V from T on, each request one 500-byte write, the server's
// application taking THINK before its 1000-byte answer; the client ACKs at once and asks again
// 5 ms later. No stall on the client's side: its waits are the server's application's.
void slow_server_turns(Conversation& c, std::vector<TcpPacket>& v, std::int64_t& t, int requests, std::int64_t think) {
  for (int r = 0; r < requests; ++r) {
    v.push_back(c.data(t, 500, true));
    t += think;
    v.push_back(c.reply(t, 1000));
    t += 100 * kUs;
    v.push_back(c.client_ack(t));
    t += 5 * kMs;
  }
}

std::vector<TcpPacket> slow_server(int requests, std::int64_t think) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  slow_server_turns(c, v, t, requests, think);
  return v;
}

TEST(ReplyLink, TheRespondersWaitsOnANagleSplitRequestNameTheRequestersDelayedAckStall) {
  const Both b = scan_both(testing::nagle_split_requests(16));
  // The requests' direction stalls on the held ACK; the responses' waits for the requests.
  ASSERT_GE(b.client.stall_counts[static_cast<std::size_t>(StallKind::delayed_ack)], 2u);
  const Diagnosis server = diagnose(b.server);
  ASSERT_EQ(server.dominant, LimitCause::peer_reply) << server.mechanism;

  ASSERT_TRUE(b.server.waits_on_peer.has_value());
  const PeerStallLink& l = *b.server.waits_on_peer;
  EXPECT_EQ(l.cause, LimitCause::delayed_ack);
  EXPECT_GE(l.linked_waits, 15u);  // the first request came before any response: no wait of the server
  EXPECT_LE(l.linked_waits, l.waits);
  EXPECT_GE(l.overlap_ns, 15 * 39 * kMs);
  EXPECT_LE(l.overlap_ns, l.wait_ns);
  // Both directions' reports carry the same link.
  ASSERT_TRUE(b.client.delays_peer.has_value());
  EXPECT_EQ(b.client.delays_peer->linked_waits, l.linked_waits);
  EXPECT_EQ(b.client.delays_peer->overlap_ns, l.overlap_ns);
  EXPECT_FALSE(b.client.waits_on_peer.has_value());
  EXPECT_FALSE(b.server.delays_peer.has_value());

  // The waiting side names the stall and points its fix at it, not at pipelining.
  EXPECT_NE(server.mechanism.find("the peer's delayed-ACK stalls"), std::string::npos) << server.mechanism;
  EXPECT_EQ(server.mechanism.find("each request waits for the peer's reply"), std::string::npos) << server.mechanism;
  ASSERT_FALSE(server.fixes.empty());
  EXPECT_NE(server.fixes.front().find("fix the peer's delayed-ACK stalls in 10.0.0.1:40000 -> 10.0.0.2:5001"),
            std::string::npos) << server.fixes.front();
  for (const auto& f : server.fixes) EXPECT_EQ(f.find("pipeline"), std::string::npos) << f;
  bool evidence = false;
  for (const auto& e : server.evidence) evidence = evidence || e.starts_with("request/response: ");
  EXPECT_TRUE(evidence);

  // The stalled side says its stalls hold up the peer's reply.
  const Diagnosis client = diagnose(b.client);
  ASSERT_EQ(client.problem, LimitCause::delayed_ack) << client.mechanism;
  EXPECT_NE(client.mechanism.find("also hold up the peer's reply"), std::string::npos) << client.mechanism;
  bool says = false;
  for (const auto& e : client.evidence) says = says || e.find("also hold up the peer's reply") != std::string::npos;
  EXPECT_TRUE(says);
}

TEST(ReplyLink, AWaitHeldAtTheCapturesEndIsAnnouncedOnce) {
  // The capture ends on the held ACK of a request's first piece: the wait is settled when the
  // report is made, once for the report and once (silently) for the link's runs.
  auto v = testing::nagle_split_requests(4);
  v.resize(v.size() - 3);  // without the last turn's second piece, its reply and the client's ACK
  ScanOptions o;
  std::uint64_t announced = 0;
  o.on_stall = [&](const SocketAddr&, const SocketAddr&, const Stall&) { ++announced; };
  StallScanner s(o);
  std::uint64_t frame = 0;
  for (const auto& p : v) s.add(p, {p.src.addr, p.src.port}, {p.dst.addr, p.dst.port}, ++frame, 64);
  std::uint64_t counted = 0;
  for (const auto& f : s.report()) {
    for (const auto& d : f.directions) counted += d.stall_count;
  }
  EXPECT_GE(counted, 4u);
  EXPECT_EQ(announced, counted);
}

TEST(ReplyLink, WaitsMostlyOnThePeersApplicationKeepItsVerdictAndNameTheStallsAsAPart) {
  // The client thinks 150 ms between requests, then stalls 40 ms on each: the server's waits are
  // linked (40 ms of each ~190 ms), but most of them is the client's application (tcpdump's
  // of10_7050sx_bsn.pcap: 0.189 s of 1.196 s, once called "not the peer's application").
  const Both b = scan_both(testing::nagle_split_requests(16, 150 * kMs));
  ASSERT_TRUE(b.server.waits_on_peer.has_value());
  const PeerStallLink& l = *b.server.waits_on_peer;
  EXPECT_LT(2 * l.overlap_ns, l.wait_ns);
  const Diagnosis server = diagnose(b.server);
  ASSERT_EQ(server.dominant, LimitCause::peer_reply) << server.mechanism;
  EXPECT_NE(server.mechanism.find("each request waits for the peer's reply"), std::string::npos) << server.mechanism;
  EXPECT_NE(server.mechanism.find("Part of the waiting is the peer's delayed-ACK stalls"), std::string::npos)
      << server.mechanism;
  EXPECT_EQ(server.mechanism.find("the peer's is:"), std::string::npos) << server.mechanism;
  for (const auto& e : server.evidence) {
    EXPECT_EQ(e.find("not on the peer's application"), std::string::npos) << e;
    EXPECT_EQ(e.find("more than on the peer's application"), std::string::npos) << e;
  }
  ASSERT_GE(server.fixes.size(), 2u);
  EXPECT_TRUE(server.fixes.back().starts_with("then fix the peer's delayed-ACK stalls")) << server.fixes.back();
}

TEST(ReplyLink, WaitsOnTheRespondersOwnApplicationAreNotLinked) {
  // The client waits 45 ms a turn on the server's application; nothing of the server's stalls.
  const Both b = scan_both(slow_server(16, 45 * kMs));
  const Diagnosis client = diagnose(b.client);
  ASSERT_EQ(client.dominant, LimitCause::peer_reply) << client.mechanism;
  EXPECT_FALSE(b.client.waits_on_peer.has_value());
  EXPECT_FALSE(b.server.delays_peer.has_value());
  EXPECT_FALSE(b.server.waits_on_peer.has_value());
  EXPECT_FALSE(b.client.delays_peer.has_value());
  EXPECT_NE(client.mechanism.find("each request waits for the peer's reply"), std::string::npos) << client.mechanism;
  for (const auto& e : client.evidence) EXPECT_FALSE(e.starts_with("request/response: ")) << e;
}

TEST(ReplyLink, WaitsThatDoNotOverlapThePeersStallsAreNotLinked) {
  // First 16 quick turns (the server waits on the client's 5 ms think time), then the client sends
  // 12 writes of 3 full segments whose lone third the server ACKs only after 40 ms, and the server
  // sends nothing more: the server's waits all end before the client's stalls begin.
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  slow_server_turns(c, v, t, 16, 1 * kMs);
  testing::odd_writes_on_held_ack(c, v, t, 12, 40 * kMs);
  const Both b = scan_both(v);
  ASSERT_GE(b.client.stall_counts[static_cast<std::size_t>(StallKind::delayed_ack)], 2u);
  ASSERT_GT(b.server.cause_ns[static_cast<std::size_t>(LimitCause::peer_reply)], 0);
  EXPECT_FALSE(b.server.waits_on_peer.has_value());
  EXPECT_FALSE(b.client.delays_peer.has_value());
  const Diagnosis client = diagnose(b.client);
  EXPECT_EQ(client.mechanism.find("hold up the peer's reply"), std::string::npos) << client.mechanism;
}

}  // namespace
}  // namespace ackstall::pcap
