// What the flight means where the capture was taken (issue 37, docs/SCAN.md "The rules"): beside
// the receiver a hole filled later is a loss upstream, a flight that reaches the offered window's
// edge each round trip is the receiver's window whatever its spacing, a segment a round trip
// after the last is the path's; a capture started mid-stream without the SYNs tells the window
// from the sender's buffer only where the sender's stops fit the window's unknown scale
// (scale_fit.h). Each rule on a capture where it must hold and one where it must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/stall_scanner.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

using core::LimitCause;
constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;
constexpr std::uint32_t kSeg = 1448;  // a full segment: MSS 1460 less the timestamps option

DirectionReport scan_client(const std::vector<TcpPacket>& packets) { return testing::scan_client_direction(packets); }

std::int64_t share_ns(const DirectionReport& d, LimitCause c) { return d.cause_ns[static_cast<std::size_t>(c)]; }

// A conversation whose SYNs carry no window scale, its window WINDOW bytes.
Conversation unscaled(std::uint32_t window) {
  ConversationConfig cfg;
  cfg.wscale = std::nullopt;
  cfg.window = static_cast<std::uint16_t>(window);
  return Conversation(cfg);
}

// Beside the receiver of a 10 ms path: a handshake whose round trip is whole at the capture.
std::vector<TcpPacket> handshake_beside_receiver(Conversation& c, std::int64_t rtt) {
  return {c.syn(0), c.syn_ack(20 * kUs), c.handshake_ack(rtt + 20 * kUs)};
}

// --- a hole filled later is a loss upstream ---

// Bulk captured beside the receiver: 30 round trips of 10 ms, 8 segments each 120 us apart, ACKed
// every second segment at once. In rounds 5, 12 and 19 the third segment is lost before the
// capture point; FILLED: its retransmission arrives among the next round's segments (else the receiver
// ACKs past it: the capture missed it) among the next round's segments.
std::vector<TcpPacket> bulk_with_holes(bool filled) {
  Conversation c;
  std::vector<TcpPacket> v = handshake_beside_receiver(c, 10 * kMs);
  std::int64_t t = 11 * kMs;
  std::optional<TcpPacket> lost;
  int lost_round = 0;
  std::uint64_t hole_at = 0;  // with a hole open the receiver's cumulative ACK stops there until it fills
  for (int round = 0; round < 30; ++round) {
    std::int64_t at = t;
    for (int i = 0; i < 8; ++i, at += 120 * kUs) {
      if (lost && lost_round < round && i == 4) {
        // The retransmission among the round's new data (fast recovery goes on sending).
        TcpPacket again = *lost;
        again.time_ns = at;
        v.push_back(again);
        v.push_back(c.ack(at + 20 * kUs, c.bytes_sent()));
        at += 120 * kUs;
        lost.reset();
      }
      const std::uint64_t start = c.bytes_sent();
      TcpPacket seg = c.data(at, kSeg, i == 7);
      if (i == 2 && (round == 5 || round == 12 || round == 19)) {
        if (filled) {
          lost = seg;
          lost_round = round;
          hole_at = start;
        }
        continue;
      }
      v.push_back(seg);
      if (i % 2 == 1) v.push_back(c.ack(at + 20 * kUs, lost ? hole_at : c.bytes_sent()));
    }
    t += 10 * kMs;
  }
  return v;
}

TEST(UpstreamLoss, AHoleFilledLaterIsALossBesideTheReceiver) {
  // The recovery began when the hole opened, a round trip before its retransmission arrived:
  // "Limited by the network (path full)" before, with loss 0.1 % of the time.
  const DirectionReport d = scan_client(bulk_with_holes(true));
  EXPECT_EQ(d.loss_events, 3u);
  EXPECT_GE(share_ns(d, LimitCause::loss), 3 * 9 * kMs);
  EXPECT_EQ(diagnose(d).problem, LimitCause::loss) << diagnose(d).mechanism;
}

TEST(UpstreamLoss, TheTimelineKeepsTheMovedTime) {
  // The plot's bands are the same accounts: the time moved to loss is relabelled there too.
  ScanOptions o;
  o.cause_timeline = true;
  StallScanner s(o);
  for (const auto& p : bulk_with_holes(true)) s.add(p);
  const DirectionReport d = s.report().front().directions.front();
  ASSERT_EQ(d.sender.port, 40000);
  core::CauseTimes from_timeline{};
  for (const auto& sp : d.timeline) from_timeline[static_cast<std::size_t>(sp.cause)] += sp.end_ns - sp.start_ns;
  EXPECT_EQ(from_timeline, d.cause_ns);
  EXPECT_GT(share_ns(d, LimitCause::loss), 0);
}

TEST(UpstreamLoss, AHoleAckedPastUnfilledIsNoLoss) {
  // The receiver ACKs past the holes: the capture missed those segments (kernel drops), nothing
  // was lost on the path.
  const DirectionReport d = scan_client(bulk_with_holes(false));
  EXPECT_EQ(d.loss_events, 0u);
  EXPECT_EQ(share_ns(d, LimitCause::loss), 0);
  EXPECT_NE(diagnose(d).problem, LimitCause::loss) << diagnose(d).mechanism;
}

// --- a flight that reaches the offered window's edge is the receiver's window ---

// Bulk captured beside the receiver of an RTT path, the receiver ACKing every second segment (as
// the simulator's Linux receiver): each round trip two segments arrive; the first pairs with the
// one held from the round before and is ACKed at once, the second is held. WINDOW: the window
// offered (unscaled); 3 segments make the sender fill it each round trip (2 segments a round
// trip: two thirds of it, under Little's law's three quarters). MID_STREAM: the capture starts
// after the handshake.
std::vector<TcpPacket> two_a_round(std::int64_t rtt, std::uint16_t window, bool mid_stream = false) {
  Conversation c = unscaled(window);
  std::vector<TcpPacket> v;
  if (!mid_stream) v = handshake_beside_receiver(c, rtt);
  std::int64_t t = rtt + 1 * kMs;
  v.push_back(c.data(t, kSeg));
  v.push_back(c.ack(t + 60 * kUs, c.bytes_sent()));
  for (int round = 0; round < 40; ++round) {
    const bool last = round == 39;
    v.push_back(c.data(t + 125 * kUs, kSeg, last));  // held by the receiver
    t += rtt;
    v.push_back(c.data(t, kSeg, last));
    v.push_back(c.ack(t + 60 * kUs, c.bytes_sent()));
  }
  return v;
}

TEST(WindowEdge, BurstsThatReachTheOfferedWindowAreTheReceiversWindow) {
  // "Limited by the network (path full)" before: Little's law saw two thirds of the window.
  const Diagnosis g = diagnose(scan_client(two_a_round(10 * kMs, 3 * kSeg)));
  EXPECT_EQ(g.dominant, LimitCause::receiver_window) << g.mechanism;
  EXPECT_EQ(g.problem, LimitCause::receiver_window) << g.mechanism;
}

TEST(WindowEdge, BurstsFarBelowTheOfferedWindowAreNotTheWindow) {
  const Diagnosis g = diagnose(scan_client(two_a_round(10 * kMs, 40 * kSeg)));
  EXPECT_NE(g.dominant, LimitCause::receiver_window) << g.mechanism;
  EXPECT_NE(g.problem, LimitCause::receiver_window) << g.mechanism;
}

// --- beside the receiver, a segment a round trip after the last is the path's ---

TEST(SenderLag, ASegmentARoundTripAfterTheLastBesideTheReceiverIsThePath) {
  // A 30 ms path (past the 20 ms threshold): the second segment of each pair arrives a round trip
  // after the first, clocked out by the ACK sent just before it. "Limited by the sending
  // application (98 %)" before.
  const Diagnosis g = diagnose(scan_client(two_a_round(30 * kMs, 3 * kSeg)));
  EXPECT_NE(g.dominant, LimitCause::sender_app) << g.mechanism;
  EXPECT_EQ(g.dominant, LimitCause::receiver_window) << g.mechanism;
}

// At the sender of a 30 ms path: ACKs come a round trip after the data; the sender also pauses
// PAUSE between its two segments of each round with the window open.
std::vector<TcpPacket> paced_at_sender(std::int64_t pause) {
  Conversation c;
  const std::int64_t rtt = 30 * kMs;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(rtt), c.handshake_ack(rtt + 10 * kUs)};
  std::int64_t t = rtt + 1 * kMs;
  for (int round = 0; round < 20; ++round) {
    v.push_back(c.data(t, kSeg));
    v.push_back(c.data(t + pause, kSeg, true));
    t += pause + rtt;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 10 * kUs;
  }
  return v;
}

TEST(SenderLag, APauseBetweenSegmentsAtTheSenderIsTheApplications) {
  // At the sender the ACK that clocks data out arrives just before it: a 40 ms pause between two
  // segments with the window open is the application's.
  const DirectionReport d = scan_client(paced_at_sender(40 * kMs));
  EXPECT_GE(share_ns(d, LimitCause::sender_app), 20 * 39 * kMs);
}

// At the sender of a 4 ms path (or at the delay line's end towards it), an application writing
// two segments every 60 ms: each segment ACKed one round trip later (two prompt waits a write),
// the next write 56 ms after.
std::vector<TcpPacket> writes_at_sender(std::int64_t rtt, std::int64_t every) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(rtt), c.handshake_ack(rtt + 10 * kUs)};
  std::int64_t t = rtt + 1 * kMs;
  for (int write = 0; write < 20; ++write, t += every) {
    v.push_back(c.data(t, kSeg));
    v.push_back(c.data(t + 10 * kUs, kSeg, true));
    v.push_back(c.ack(t + rtt, c.bytes_sent() - kSeg));
    v.push_back(c.ack(t + rtt + 20 * kUs, c.bytes_sent()));
  }
  return v;
}

TEST(SenderLag, AWritesRoundTripThatReleasedNothingIsNoFlightLimit) {
  // The ACK of each write released nothing (the next write came 56 ms later): its round trip was
  // no flight held by a buffer. (It was read "Problem: the sender's buffer", 20 waits at a flat
  // flight of two segments.)
  const DirectionReport d = scan_client(writes_at_sender(4 * kMs, 60 * kMs));
  EXPECT_EQ(share_ns(d, LimitCause::send_buffer), 0);
  EXPECT_LE(d.flight_waits, 2u);  // the last write's: nothing after it to tell
  const Diagnosis g = diagnose(d);
  EXPECT_FALSE(g.problem) << g.mechanism;
  EXPECT_EQ(g.dominant, LimitCause::sender_app) << g.mechanism;
}

TEST(SenderLag, AWritesRoundTripThatReleasedTheNextIsAFlight) {
  // The same writes back to back (the next one right after each ACK): the waits are the flight's.
  const DirectionReport d = scan_client(writes_at_sender(4 * kMs, 4 * kMs + 100 * kUs));
  EXPECT_GE(d.flight_waits, 32u);
}

TEST(SenderLag, AnIdleAfterAWriteWhoseEndTheCaptureMissedIsTheApplications) {
  // Beside the receiver, writes of three segments (the last with PSH) every 48 ms, each segment
  // ACKed at once; the capture dropped one write's last segment (its ACK covers it). The idle
  // after it is the application's like every other (it was the flight's: "Problem: the sender's
  // buffer (5 %)", the idle taken for one in the middle of a write).
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(20 * kUs), c.handshake_ack(40 * kUs)};
  std::int64_t t = 1 * kMs;
  for (int write = 0; write < 20; ++write, t += 48 * kMs) {
    v.push_back(c.data(t, kSeg));
    v.push_back(c.ack(t + 20 * kUs, c.bytes_sent()));
    v.push_back(c.data(t + 50 * kUs, kSeg));
    v.push_back(c.ack(t + 70 * kUs, c.bytes_sent()));
    const TcpPacket last = c.data(t + 100 * kUs, 1016, true);
    if (write != 7) v.push_back(last);  // the capture dropped this one
    v.push_back(c.ack(t + 120 * kUs, c.bytes_sent()));
  }
  const DirectionReport d = scan_client(v);
  EXPECT_LT(share_ns(d, LimitCause::send_buffer) + share_ns(d, LimitCause::network), 10 * kMs);
  const Diagnosis g = diagnose(d);
  EXPECT_FALSE(g.problem) << g.mechanism;
}

// --- one segment a round trip is no link's frame time ---

// Beside the receiver of a 10 ms path, a window of one segment: each segment ACKed at once, the
// next a round trip later.
std::vector<TcpPacket> one_a_round() {
  Conversation c = unscaled(kSeg);
  std::vector<TcpPacket> v = handshake_beside_receiver(c, 10 * kMs);
  std::int64_t t = 11 * kMs;
  for (int i = 0; i < 40; ++i, t += 10 * kMs + 100 * kUs) {
    v.push_back(c.data(t, kSeg, true));
    v.push_back(c.ack(t + 60 * kUs, c.bytes_sent()));
  }
  return v;
}

TEST(WindowEdge, OneSegmentARoundTripInAOneSegmentWindowIsTheWindow) {
  // "Limited by the network (path full)" before: the round trip's spacing was read as a link's.
  const Diagnosis g = diagnose(scan_client(one_a_round()));
  EXPECT_EQ(g.dominant, LimitCause::receiver_window) << g.mechanism;
}

// --- mid-stream without the SYNs: the window and the buffer look alike ---

// At the sender of a 30 ms path, captured after the handshake: FLIGHT segments a round trip
// under a window read of WINDOW segments (unscaled as read: the scale is unknown).
std::vector<TcpPacket> mid_stream_at_sender(int flight, std::uint16_t window) {
  Conversation c = unscaled(window * kSeg);
  std::vector<TcpPacket> v;
  std::int64_t t = 0;
  for (int round = 0; round < 30; ++round) {
    for (int i = 0; i < flight; ++i) v.push_back(c.data(t + i * 120 * kUs, kSeg, i + 1 == flight));
    t += 30 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 20 * kUs;
  }
  return v;
}

// --- mid-stream: the window's unknown scale fitted to where the sender stops (scale_fit.h) ---

// At the sender of a 30 ms path, captured after the handshake: each round the segments of
// FLIGHTS[round % size] (a round of 0 segments is skipped), then the ACK of them all offering
// WINDOWS[round % size] segments (raw as read; the scale is unknown).
std::vector<TcpPacket> mid_stream_rounds(const std::vector<int>& flights, const std::vector<std::uint16_t>& windows) {
  Conversation c = unscaled(windows.front() * kSeg);
  std::vector<TcpPacket> v;
  std::int64_t t = 0;
  for (std::size_t round = 0; round < 30; ++round) {
    const int flight = flights[round % flights.size()];
    for (int i = 0; i < flight; ++i) v.push_back(c.data(t + i * 120 * kUs, kSeg, false));
    t += 30 * kMs;
    v.push_back(c.ack(t, c.bytes_sent(), static_cast<std::uint16_t>(windows[round % windows.size()] * kSeg)));
    t += 20 * kUs;
  }
  return v;
}

TEST(MidStream, AFlightThatStopsAtTheWindowsEdgeEachRoundIsTheWindow) {
  // Each round the sender stops exactly at ACK + the window read: the smallest window the data
  // allows. "Too little to judge: ... look alike" before.
  const DirectionReport d = scan_client(mid_stream_at_sender(3, 3));
  const Diagnosis g = diagnose(d);
  EXPECT_EQ(d.mid_stream_limit, LimitCause::receiver_window);
  EXPECT_EQ(g.problem, LimitCause::receiver_window) << g.mechanism;
}

TEST(MidStream, AFlightThatFollowsAChangingWindowIsTheWindow) {
  // The window read changes (2, 4, 3 segments) and each next flight stops at its new edge: no
  // one buffer size fits those stops.
  const Diagnosis g = diagnose(scan_client(mid_stream_rounds({2, 2, 4, 3}, {2, 4, 3, 2})));
  EXPECT_EQ(g.problem, LimitCause::receiver_window) << g.mechanism;
}

TEST(MidStream, DataBeyondTheRawEdgeRaisesTheScale) {
  // A window read of 2 segments and flights of 4: the sender went past ACK + 2 segments, so the
  // scale is 1 or more; at 1 the edge is 4 segments and every stop is at it.
  const DirectionReport d = scan_client(mid_stream_rounds({4}, {2}));
  EXPECT_EQ(d.mid_stream_limit, LimitCause::receiver_window);
  EXPECT_EQ(diagnose(d).problem, LimitCause::receiver_window) << diagnose(d).mechanism;
}

TEST(MidStream, AFlightAFullSegmentShortOfTheSmallestEdgeIsTheBuffer) {
  // Flights of 3 segments under a window read of 2: the scale is 1 or more, the edge 4 segments
  // or more; the sender stops a full segment short of it every round: not the window.
  const DirectionReport d = scan_client(mid_stream_rounds({3}, {2}));
  const Diagnosis g = diagnose(d);
  EXPECT_EQ(d.mid_stream_limit, LimitCause::send_buffer);
  EXPECT_EQ(g.dominant, LimitCause::send_buffer) << g.mechanism;
  EXPECT_FALSE(g.mechanism.starts_with("Too little")) << g.mechanism;
}

TEST(MidStream, StopsNowAtTheEdgeNowShortOfItAreTooLittleToJudge) {
  // Flights of 3 and 2 segments under a window read of 3: half the stops at the edge, half a
  // segment short: neither rule holds over (nearly) every round.
  const DirectionReport d = scan_client(mid_stream_rounds({3, 2}, {3}));
  const Diagnosis g = diagnose(d);
  EXPECT_FALSE(d.mid_stream_limit.has_value());
  EXPECT_FALSE(g.problem.has_value()) << g.mechanism;
  EXPECT_TRUE(g.mechanism.starts_with("Too little to judge")) << g.mechanism;
  EXPECT_NE(g.mechanism.find("look alike"), std::string::npos) << g.mechanism;
}

// Mid-stream beside the receiver: full segments SPACING apart, each ACKed 60 us after it arrives
// (a floor of 60 us), the window read far above the flight.
std::vector<TcpPacket> mid_stream_spaced(std::int64_t spacing) {
  Conversation c = unscaled(40 * kSeg);
  std::vector<TcpPacket> v;
  std::int64_t t = 0;
  for (int i = 0; i < 200; ++i, t += spacing) {
    v.push_back(c.data(t, kSeg));
    v.push_back(c.ack(t + 60 * kUs, c.bytes_sent()));
  }
  return v;
}

TEST(MidStream, SegmentsARoundTripApartWithoutTheSynsShowNoFullPath) {
  // One segment every 10 ms: a window of one segment over a 10 ms path, or a 1.2 Mbit/s link;
  // without the round trip they look alike. "Limited by the network (path full)" before.
  const DirectionReport d = scan_client(mid_stream_spaced(10 * kMs));
  const Diagnosis g = diagnose(d);
  EXPECT_FALSE(d.path_full);
  EXPECT_TRUE(g.mechanism.starts_with("Too little to judge")) << g.mechanism;
}

TEST(MidStream, SegmentsAFrameTimeApartWithoutTheSynsAreAFullPath) {
  // 120 us apart (100 Mbit/s), under a millisecond: a link's frame time, judged.
  const DirectionReport d = scan_client(mid_stream_spaced(120 * kUs));
  const Diagnosis g = diagnose(d);
  EXPECT_TRUE(d.path_full);
  EXPECT_EQ(g.dominant, LimitCause::network) << g.mechanism;
  EXPECT_FALSE(g.mechanism.starts_with("Too little")) << g.mechanism;
}

// --- idle mid-write is the flight's, idle after a write's end the application's ---

// Captured beside the receiver after the handshake: each 30 ms two full segments arrive and are
// ACKed at once; PSH: the second ends a write (else the write goes on: the sender had more).
std::vector<TcpPacket> idle_between_pairs(bool psh) {
  Conversation c = unscaled(40 * kSeg);
  std::vector<TcpPacket> v;
  std::int64_t t = 0;
  for (int round = 0; round < 30; ++round) {
    v.push_back(c.data(t, kSeg));
    v.push_back(c.data(t + 120 * kUs, kSeg, psh));
    v.push_back(c.ack(t + 180 * kUs, c.bytes_sent()));
    t += 30 * kMs;
  }
  return v;
}

TEST(IdleMidWrite, AnIdleSenderInTheMiddleOfAWriteIsNotTheApplication) {
  // It had data queued: a window or a buffer held it (here, mid-stream beside the receiver,
  // which of them is not told). "Limited by the sending application" before.
  const DirectionReport d = scan_client(idle_between_pairs(false));
  EXPECT_EQ(share_ns(d, LimitCause::sender_app), 0);
  EXPECT_NE(diagnose(d).dominant, LimitCause::sender_app) << diagnose(d).mechanism;
}

TEST(IdleMidWrite, AnIdleSenderAfterAWritesEndIsTheApplication) {
  const Diagnosis g = diagnose(scan_client(idle_between_pairs(true)));
  EXPECT_EQ(g.dominant, LimitCause::sender_app) << g.mechanism;
}

// --- a mid-write idle that no ACK ended is a write's tail lost upstream ---

// Request/response captured beside the receiver of a 10 ms path (the handshake's round trip
// whole): 30 requests of 4 full segments and a 500-byte tail (PSH), ACKed every second segment at
// once, each answered by a 100-byte reply as its tail arrives; the client's next request a round
// trip after the reply. In every second request the tail arrives TAIL_AFTER the ACK of the 4th
// segment (lost before the capture point and resent by a timer, or held by the sender), else
// 120 us after the 4th segment.
// AT_SENDER: the same exchange captured at the client, each ACK and reply a round trip after the
// data it answers, the next request at once after the reply.
// Writes of 4 segments and a 500-byte tail with PSH, every other tail TAIL_AFTER behind the ACK
// of the rest; with corked set, the segment after the wait is a full one without PSH (a sender
// that sets PSH only at its transfer's end: TCP_CORK, MSG_MORE, sendfile).
std::vector<TcpPacket> requests_with_late_tails(std::int64_t tail_after, bool at_sender = false, bool corked = false) {
  Conversation c;
  const std::int64_t rtt = 10 * kMs, lag = at_sender ? rtt : 20 * kUs;  // data to its ACK here
  std::vector<TcpPacket> v = at_sender ? std::vector<TcpPacket>{c.syn(0), c.syn_ack(rtt), c.handshake_ack(rtt + 20 * kUs)}
                                       : handshake_beside_receiver(c, rtt);
  std::int64_t t = 11 * kMs;
  for (int r = 0; r < 30; ++r) {
    std::int64_t last_ack = t;
    for (int i = 0; i < 4; ++i, t += 120 * kUs) {
      v.push_back(c.data(t, kSeg));
      if (i % 2 == 1) v.push_back(c.ack(last_ack = t + lag, c.bytes_sent()));
    }
    t = r % 2 == 1 ? last_ack + tail_after : t;
    v.push_back(corked && r % 2 == 1 ? c.data(t, kSeg) : c.data(t, 500, true));
    v.push_back(c.reply(t + (at_sender ? rtt : 300 * kUs), 100));
    t += at_sender ? rtt + 50 * kUs : 300 * kUs + rtt;
  }
  std::stable_sort(v.begin(), v.end(), [](const TcpPacket& a, const TcpPacket& b) { return a.time_ns < b.time_ns; });
  return v;
}

TEST(TailLoss, AMidWriteIdleThatNoAckEndedIsAWritesTailLostUpstream) {
  // The tail 230 ms after the ACK (Linux's probe timeout with one segment out: 2 SRTT + 200 ms,
  // RFC 8985 §7.2): the sender had the tail, a window and an empty flight; it had sent it. The
  // lab's tail drops beside the receiver read as the sender's buffer before (docs/SCAN.md).
  const DirectionReport d = scan_client(requests_with_late_tails(230 * kMs));
  const Diagnosis g = diagnose(d);
  EXPECT_EQ(d.unseen_tail_losses, 15u);
  EXPECT_EQ(d.loss_events, 15u);
  EXPECT_EQ(g.problem, LimitCause::loss) << g.mechanism;
  EXPECT_NE(g.mechanism.find("15 writes' last segment lost before the capture point"), std::string::npos) << g.mechanism;
}

TEST(TailLoss, AtTheSenderAMidWriteIdleIsNoLossUpstream) {
  // The same idles captured at the client: nothing is lost before this capture point (a lost
  // tail would be seen, and its retransmission); the sender held its own data.
  const DirectionReport d = scan_client(requests_with_late_tails(230 * kMs, true));
  EXPECT_EQ(d.unseen_tail_losses, 0u);
  EXPECT_EQ(d.loss_events, 0u);
  EXPECT_EQ(share_ns(d, LimitCause::loss), 0);
}

TEST(TailLoss, ACorkedSendersWaitEndedWithoutPshIsNoLoss) {
  // The same idles beside the receiver, each ended by a full segment without PSH: a sender that
  // marks only its transfer's end (a sendfile server waiting on its disk) had not sent that data;
  // a resent tail would carry the write's PSH.
  const DirectionReport d = scan_client(requests_with_late_tails(230 * kMs, false, true));
  EXPECT_EQ(d.unseen_tail_losses, 0u);
  EXPECT_EQ(d.loss_events, 0u);
  EXPECT_EQ(share_ns(d, LimitCause::loss), 0);
}

TEST(TailLoss, ATailReleasedWithinARoundTripOfTheAckIsNoLoss) {
  // The tail 12 ms after the ACK of a 10 ms path: the ACK's way back and the sender's reaction
  // (a buffer the ACK freed), not a tail resent by a timer.
  const DirectionReport d = scan_client(requests_with_late_tails(12 * kMs));
  EXPECT_EQ(d.unseen_tail_losses, 0u);
  EXPECT_EQ(d.loss_events, 0u);
  EXPECT_EQ(share_ns(d, LimitCause::loss), 0);
}

TEST(MidStream, ABufferFlightBesideTheReceiverIsJudgedByItsStops) {
  // Beside the receiver (ACKs 60 us after the data, no round trip known): 2 segments a round
  // under a window read of 40; the flight at an ACK is the last hop's, but the stops leave even
  // the smallest window unused. "Too little to judge" before.
  const DirectionReport d = scan_client(idle_between_pairs(false));
  EXPECT_EQ(d.mid_stream_limit, LimitCause::send_buffer);
  EXPECT_EQ(diagnose(d).problem, LimitCause::send_buffer) << diagnose(d).mechanism;
}

TEST(MidStream, LoneSegmentsARoundTripApartUnderAWideWindowSettleNothing) {
  // A segment every 10 ms under a window read of 40: a slow link's pace or a one-segment flight;
  // a lone segment short of the edge is no buffer's stop.
  EXPECT_FALSE(scan_client(mid_stream_spaced(10 * kMs)).mid_stream_limit.has_value());
}

TEST(MidStream, AFlightFarBelowTheWindowReadAtTheSenderIsJudged) {
  // A flat 2-segment flight under a 40-segment window read: whatever the scale, the window is
  // larger; the sender's buffer holds the flight.
  const Diagnosis g = diagnose(scan_client(mid_stream_at_sender(2, 40)));
  EXPECT_FALSE(g.mechanism.starts_with("Too little to judge")) << g.mechanism;
  EXPECT_EQ(g.problem, LimitCause::send_buffer) << g.mechanism;
}

}  // namespace
}  // namespace ackstall::pcap
