#include "ackstall/pcap/stall_scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/scan_file.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;

// The seed's pathology as a capture at the sender: each application send of `segments`
// full-sized segments is sent back to back and must be wholly ACKed before the next (Winsock's
// per-send quota); a BSD receiver ACKs every second segment at once and a lone one after
// `delack` (docs/STACKS.md §1, §3).
std::vector<TcpPacket> stop_and_wait(int sends, int segments, std::int64_t delack,
                                     ConversationConfig cfg = {}) {
  Conversation c(cfg);
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int s = 0; s < sends; ++s) {
    for (int i = 0; i < segments; ++i) {
      v.push_back(c.data(t, 1448, i == segments - 1));
      if (i % 2 == 1) v.push_back(c.ack(t + 20 * kUs, c.bytes_sent()));
      t += 123 * kUs;
    }
    if (segments % 2 == 1) {
      t += delack;
      v.push_back(c.ack(t, c.bytes_sent()));
    }
    t += 50 * kUs;
  }
  return v;
}

std::vector<FlowReport> scan(const std::vector<TcpPacket>& packets, ScanOptions o = {}) {
  StallScanner s(o);
  for (const auto& p : packets) s.add(p);
  return s.report();
}

TEST(StallScanner, OddSendsStallOnTheDelayedAckEverySend) {
  const auto flows = scan(stop_and_wait(10, 11, 200 * kMs));
  ASSERT_EQ(flows.size(), 1u);
  ASSERT_EQ(flows[0].directions.size(), 1u);
  const DirectionReport& d = flows[0].directions[0];
  EXPECT_EQ(d.sender.port, 40000);
  EXPECT_EQ(d.data_segments, 110u);
  EXPECT_EQ(d.bytes_sent, 110u * 1448);
  EXPECT_EQ(d.bytes_acked, d.bytes_sent);
  ASSERT_EQ(d.stalls.size(), 10u);
  EXPECT_EQ(d.stall_counts[static_cast<int>(StallKind::delayed_ack)], 10u);
  for (std::size_t i = 0; i < d.stalls.size(); ++i) {
    EXPECT_EQ(d.stalls[i].kind, StallKind::delayed_ack);
    EXPECT_EQ(d.stalls[i].segments, 1u);
    EXPECT_EQ(d.stalls[i].outstanding, 1448u);
    EXPECT_EQ(d.stalls[i].seq, (i * 11 + 10) * 1448);
    EXPECT_EQ(d.stalls[i].ack_delay_ns, 123 * kUs + 200 * kMs);
  }
  EXPECT_EQ(d.stalled_ns, 10 * (123 * kUs + 200 * kMs));
  // The timer is the hold beyond the path's floor (the 20 us of the prompt ACKs).
  EXPECT_EQ(d.delayed_ack_timeout_ns, 123 * kUs + 200 * kMs - 20 * kUs);
  EXPECT_EQ(d.prompt_acks_two, 50u);
  EXPECT_EQ(d.ack_every, AckEvery::every_second_segment);
  EXPECT_EQ(d.mss, 1460);
  EXPECT_TRUE(d.timestamps);
  EXPECT_EQ(d.effective_mss, 1448u);  // one MSS: the payload of a full segment (announced less 12)
  EXPECT_EQ(d.nagle_holds, 0u);       // full 1448-byte segments are not short ones
  // ~159 KB in ~2 s: the seed's tens of KB/s, not 11 MB/s.
  EXPECT_GT(d.goodput_bytes_per_s, 70e3);
  EXPECT_LT(d.goodput_bytes_per_s, 90e3);
}

TEST(StallScanner, EachStallIsReportedAsItIsFound) {
  std::vector<Stall> seen;
  std::vector<std::uint16_t> ports;
  ScanOptions o;
  o.on_stall = [&](const SocketAddr& sender, const SocketAddr&, const Stall& st) {
    seen.push_back(st);
    ports.push_back(sender.port);
  };
  const auto flows = scan(stop_and_wait(10, 11, 200 * kMs), o);
  const auto& d = flows.at(0).directions.at(0);
  ASSERT_EQ(seen.size(), d.stalls.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].release_frame, d.stalls[i].release_frame);
    EXPECT_EQ(seen[i].kind, d.stalls[i].kind);
    EXPECT_EQ(ports[i], d.sender.port);
  }
}

TEST(StallScanner, EvenSendsDoNotStall) {
  const auto flows = scan(stop_and_wait(10, 10, 200 * kMs));
  const DirectionReport& d = flows.at(0).directions.at(0);
  EXPECT_TRUE(d.stalls.empty());
  EXPECT_EQ(d.stalled_ns, 0);
  EXPECT_FALSE(d.delayed_ack_timeout_ns);
  EXPECT_GT(d.goodput_bytes_per_s, 10e6);
}

TEST(StallScanner, ThresholdIsConfigurable) {
  const auto packets = stop_and_wait(5, 3, 40 * kMs);  // a Linux-pingpong-like 40 ms timer
  EXPECT_EQ(scan(packets).at(0).directions.at(0).stalls.size(), 5u);
  EXPECT_EQ(scan(packets, {.threshold = std::chrono::milliseconds(50), .on_stall = {}}).at(0).directions.at(0).stalls.size(), 0u);
}

TEST(StallScanner, SequenceWrapAndNoHandshake) {
  ConversationConfig cfg;
  cfg.client_isn = 0xffff0000u;
  auto packets = stop_and_wait(20, 5, 100 * kMs, cfg);
  packets.erase(packets.begin(), packets.begin() + 3);  // capture started mid-connection
  const auto flows = scan(packets);
  const auto& d = flows.at(0).directions.at(0);
  EXPECT_EQ(d.bytes_acked, 100u * 1448);
  EXPECT_EQ(d.stall_counts[static_cast<int>(StallKind::delayed_ack)], 20u);
  EXPECT_FALSE(d.mss);
}

TEST(StallScanner, ZeroWindowRetransmissionAndWindowUpdate) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(kUs), c.handshake_ack(2 * kUs)};
  v.push_back(c.data(10 * kUs, 1448));
  v.push_back(c.data(20 * kUs, 1448));
  v.push_back(c.ack(30 * kUs, 2896, 0));  // window closes
  v.push_back(c.ack(80 * kMs, 2896));     // ...and opens 80 ms later
  v.push_back(c.data(81 * kMs, 1448));
  TcpPacket rexmit = v.back();
  rexmit.time_ns = 381 * kMs;  // RTO
  v.push_back(rexmit);
  v.push_back(c.ack(382 * kMs, 3 * 1448));
  // window_update: a full window outstanding, the ACK adds nothing new but opens it.
  v.push_back(c.data(383 * kMs, 1448));
  v.push_back(c.ack(383 * kMs + 10 * kUs, 3 * 1448, 1));
  v.push_back(c.ack(500 * kMs, 3 * 1448, 512));
  const auto flows = scan(v);
  const auto& d = flows.at(0).directions.at(0);
  ASSERT_EQ(d.stalls.size(), 3u);
  EXPECT_EQ(d.stalls[0].kind, StallKind::zero_window);
  EXPECT_EQ(d.stalls[0].start_ns, 20 * kUs);
  EXPECT_EQ(d.stalls[1].kind, StallKind::retransmission);
  EXPECT_EQ(d.stalls[1].seq, 2896u);
  EXPECT_EQ(d.stalls[2].kind, StallKind::window_update);
  EXPECT_EQ(d.retransmitted_segments, 1u);
}

TEST(StallScanner, WindowLimitedAndSlowAck) {
  ConversationConfig cfg;
  cfg.wscale = 0;
  cfg.window = 2896;
  Conversation c(cfg);
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(kUs), c.handshake_ack(2 * kUs)};
  v.push_back(c.ack(5 * kUs, 0));  // advertises the 2896-byte window
  v.push_back(c.data(10 * kUs, 1448));
  v.push_back(c.data(20 * kUs, 1448));
  v.push_back(c.ack(60 * kMs, 1448, 65535));  // the window was full; one segment ACKed late
  v.push_back(c.data(61 * kMs, 1448));
  v.push_back(c.data(62 * kMs, 1448));
  v.push_back(c.ack(200 * kMs, 4 * 1448, 65535));  // three segments ACKed late
  const auto flows = scan(v);
  const auto& d = flows.at(0).directions.at(0);
  ASSERT_EQ(d.stalls.size(), 2u);
  EXPECT_EQ(d.stalls[0].kind, StallKind::window_limited);
  EXPECT_EQ(d.stalls[1].kind, StallKind::slow_ack);
  EXPECT_EQ(d.stalls[1].segments, 3u);
}

TEST(StallScanner, BothDirectionsAndManyFlowsAreSeparate) {
  auto a = stop_and_wait(3, 3, 200 * kMs);
  ConversationConfig other;
  other.client.port = 40001;
  auto b = stop_and_wait(4, 4, 200 * kMs, other);
  std::vector<TcpPacket> all;
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
             [](const TcpPacket& x, const TcpPacket& y) { return x.time_ns < y.time_ns; });
  const auto flows = scan(all);
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].key.a.port, 40000);  // 10.0.0.1:40000 < 10.0.0.1:40001
  EXPECT_EQ(flows[0].directions.at(0).stalls.size(), 3u);
  EXPECT_EQ(flows[1].directions.at(0).stalls.size(), 0u);
  EXPECT_EQ(flows[0].packets, a.size());
}

TEST(ScanFile, ThroughTheWriterAndReader) {
  const auto path = testing::write_capture("scan.pcap", stop_and_wait(10, 11, 200 * kMs));
  auto r = scan_file(path);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->records, r->tcp_packets);
  EXPECT_EQ(r->first_ns, 0);
  EXPECT_GT(r->last_ns, 2'000 * kMs);
  ASSERT_EQ(r->flows.size(), 1u);
  EXPECT_EQ(r->flows[0].directions.at(0).stall_counts[0], 10u);
  auto filtered = scan_file(path, {}, {parse_flow_filter(":9999").value()});
  ASSERT_TRUE(filtered);
  EXPECT_TRUE(filtered->flows.empty());
  EXPECT_EQ(filtered->records, r->records);
}

}  // namespace
}  // namespace ackstall::pcap

namespace ackstall::pcap {
namespace {

// A connection closed both ways is retired kRetireAfterNs later (its state becomes its report);
// the same four-tuple used again afterwards is a connection of its own, reported after it.
TEST(StallScannerRetire, AClosedConnectionIsRetiredAndAReusedTupleIsANewOne) {
  StallScanner s;
  const auto run = [&](std::int64_t t0, int segments) {
    Conversation c;
    for (const TcpPacket& p : {c.syn(t0), c.syn_ack(t0 + kMs), c.handshake_ack(t0 + 2 * kMs)}) s.add(p);
    std::int64_t t = t0 + 3 * kMs;
    for (int i = 0; i < segments; ++i, t += kMs) {
      s.add(c.data(t, 1448, i == segments - 1));
      s.add(c.ack(t + kMs / 2, c.bytes_sent()));
    }
    s.add(c.fin(t));
    TcpPacket server_fin = c.ack(t + kMs / 2, c.bytes_sent() + 1);
    server_fin.flags |= tcp_flag::fin;
    s.add(server_fin);
  };
  run(0, 12);
  EXPECT_EQ(s.flow_count(), 1u);
  run(StallScanner::kRetireAfterNs + 100 * kMs, 20);  // its first packet retires the first one
  EXPECT_EQ(s.flow_count(), 1u);
  const auto flows = s.take_report();
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].key, flows[1].key);
  ASSERT_EQ(flows[0].directions.size(), 1u);
  ASSERT_EQ(flows[1].directions.size(), 1u);
  EXPECT_EQ(flows[0].directions[0].data_segments, 12u);  // the earlier connection first
  EXPECT_EQ(flows[1].directions[0].data_segments, 20u);
}

// Not closed (one FIN): held until the end, however long ago its last packet.
TEST(StallScannerRetire, AHalfClosedConnectionIsHeld) {
  StallScanner s;
  Conversation c;
  for (const TcpPacket& p : {c.syn(0), c.syn_ack(kMs), c.handshake_ack(2 * kMs), c.data(3 * kMs, 100, true),
                             c.ack(4 * kMs, 100), c.fin(5 * kMs)})
    s.add(p);
  ConversationConfig cfg;
  cfg.client.port = 40001;
  Conversation other(cfg);
  s.add(other.syn(3 * StallScanner::kRetireAfterNs));
  EXPECT_EQ(s.flow_count(), 2u);
  EXPECT_EQ(s.report().size(), 2u);
}

}  // namespace
}  // namespace ackstall::pcap
