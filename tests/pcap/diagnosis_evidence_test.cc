// The diagnosis weighs its evidence (issue 37, docs/SCAN.md "Claims"): each rule on a capture
// where it must hold and one where it must not.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ackstall/pcap/capture_artefacts.h"
#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/scan_file.h"
#include "ackstall/pcap/stall_scanner.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

using core::LimitCause;
constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;

std::uint64_t count(const DirectionReport& d, StallKind k) { return d.stall_counts[static_cast<std::size_t>(k)]; }

// The client's (port 40000) direction of PACKETS, scanned as a capture file is: written, read.
DirectionReport scan_client(const std::filesystem::path& path) {
  auto r = scan_file(path);
  EXPECT_TRUE(r) << r.error().message();
  if (r) {
    for (const auto& f : r->flows) {
      for (const auto& d : f.directions) {
        if (d.sender.port == 40000) return d;
      }
    }
  }
  ADD_FAILURE() << "no client direction";
  return {};
}

DirectionReport scan_client(const std::vector<TcpPacket>& packets, std::uint8_t receiver_ttl = 0) {
  StallScanner s;
  std::uint64_t frame = 0;
  for (const auto& p : packets) {
    const bool from_client = p.src.port == 40000;
    s.add(p, {p.src.addr, p.src.port}, {p.dst.addr, p.dst.port}, ++frame,
          from_client ? std::uint8_t{64} : receiver_ttl);
  }
  for (const auto& f : s.report()) {
    for (const auto& d : f.directions) {
      if (d.sender.port == 40000) return d;
    }
  }
  ADD_FAILURE() << "no client direction";
  return {};
}

bool has_line(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

std::vector<TcpPacket> stop_and_wait(int sends, std::int64_t hold) {
  return testing::stop_and_wait_on_held_ack(sends, hold, true);
}

// --- duplicated frames are the capture's ---

TEST(CaptureArtefacts, FramesCapturedTwiceAreNoLoss) {
  const auto once = testing::write_capture("once.pcap", stop_and_wait(12, 200 * kMs));
  const auto twice = testing::duplicate_every_record(once, "twice.pcap", 2'000);
  const DirectionReport a = scan_client(once), b = scan_client(twice);
  EXPECT_EQ(b.retransmitted_segments, 0u);
  EXPECT_EQ(b.loss_events, 0u);
  EXPECT_EQ(b.data_segments, a.data_segments);
  EXPECT_GE(b.duplicate_frames, a.data_segments);
  EXPECT_EQ(b.cause_ns, a.cause_ns);
  const Diagnosis g = diagnose(b);
  EXPECT_EQ(g.problem, LimitCause::delayed_ack) << g.mechanism;
  EXPECT_TRUE(has_line(g.capture_warnings, "captured twice")) << g.mechanism;
}

// Twelve one-segment writes 1 ms apart, each ACKed; after write I, RESEND(i, t, v) may add
// frames (and move the clock t on).
template <typename Resend>
std::vector<TcpPacket> writes_with_resends(Conversation& c, Resend resend) {
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int i = 0; i < 12; ++i) {
    v.push_back(c.data(t, 1448, true));
    resend(i, t, v);
    t += 1 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
  }
  return v;
}

TEST(CaptureArtefacts, ARetransmissionIsNoDuplicate) {
  // The same segment sent again 300 us later is a new datagram (another IP ID): a retransmission.
  Conversation c;
  const auto v = writes_with_resends(c, [](int i, std::int64_t t, std::vector<TcpPacket>& out) {
    if (i != 5) return;
    TcpPacket again = out.back();
    again.time_ns = t + 300 * kUs;
    out.push_back(again);
  });
  const DirectionReport d = scan_client(testing::write_capture("resent.pcap", v));
  EXPECT_EQ(d.retransmitted_segments, 1u);
  EXPECT_EQ(d.duplicate_frames, 0u);
  EXPECT_FALSE(has_line(diagnose(d).capture_warnings, "captured twice"));
}

TEST(CaptureArtefacts, ARoutersForwardedCopyIsNoRetransmission) {
  // tcptrace's discard.solaris.dmp: every datagram captured again 4.5-9.6 ms later as the router
  // sent it back out on the LAN: the same IP ID and segment, the TTL one less. Here 3 ms later,
  // after the ACK: each copy read as a (spurious) resend before.
  Conversation c;
  const auto once = testing::write_capture("once.pcap", writes_with_resends(c, [](int, std::int64_t, auto&) {}));
  const auto forwarded = testing::forward_data_frames(once, "forwarded.pcap", 40000, 3 * kMs);
  const DirectionReport a = scan_client(once), b = scan_client(forwarded);
  EXPECT_EQ(b.retransmitted_segments, 0u);
  EXPECT_EQ(b.retransmissions, 0u);
  EXPECT_EQ(b.loss_events, 0u);
  EXPECT_EQ(b.forwarded_copies, 12u);
  EXPECT_EQ(b.duplicate_frames, 0u);
  EXPECT_EQ(b.data_segments, a.data_segments);
  EXPECT_EQ(b.cause_ns, a.cause_ns);
  EXPECT_TRUE(has_line(diagnose(b).capture_warnings, "router forwarded")) << diagnose(b).mechanism;
}

TEST(CaptureArtefacts, TheSameDatagramResentWithTheSameTtlIsARetransmission) {
  // A stack that reuses IP IDs sends the segment again as the same datagram, with its own TTL: a
  // retransmission (3 ms later: no copy of the capture's either).
  Conversation c;
  const auto once = testing::write_capture("once.pcap", writes_with_resends(c, [](int, std::int64_t, auto&) {}));
  const auto again = testing::forward_data_frames(once, "again.pcap", 40000, 3 * kMs, 0);
  const DirectionReport d = scan_client(again);
  EXPECT_EQ(d.retransmissions, 12u);
  EXPECT_EQ(d.forwarded_copies, 0u);
  EXPECT_FALSE(has_line(diagnose(d).capture_warnings, "router forwarded"));
}

// --- a resend the receiver reports received twice (D-SACK) is no loss ---

// Bulk captured beside the receiver over a 10 ms path: 30 flights of 4 segments, each pair ACKed
// at once. After flights 8, 15 and 22 the ACK of the tail is lost on the way back (past the
// capture point): the sender's tail-loss probe resends the last segment 20 ms later, and the
// receiver, which had it, answers with a duplicate ACK whose SACK block is BLOCK(seq, end, ack)
// (RFC 2883 §4: a D-SACK lies below the cumulative ACK); no SACK option when it returns nullopt.
// LATE: the block comes on the receiver's next ACK instead (of the next flight's first two
// segments: the recovery has accounted time by then).
template <typename Block>
std::vector<TcpPacket> tail_probes(Block block, bool late = false) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(20 * kUs), c.handshake_ack(10 * kMs + 20 * kUs)};
  std::int64_t t = 11 * kMs;
  bool pending = false;  // a probe's range [ps, pe), its block not sent yet
  std::uint32_t ps = 0, pe = 0;
  for (int f = 0; f < 30; ++f) {
    for (int i = 0; i < 4; ++i) {
      v.push_back(c.data(t + i * 100 * kUs, 1448, i == 3));
      if (i % 2 == 1) {
        TcpPacket a = c.ack(t + i * 100 * kUs + 50 * kUs, c.bytes_sent());
        if (pending) {
          if (const std::optional<SackBlocks> b = block(ps, pe, a.ack)) a.sack = *b;
          pending = false;
        }
        v.push_back(a);
      }
    }
    t += 10 * kMs;
    if (f == 8 || f == 15 || f == 22) {
      TcpPacket probe = v[v.size() - 2];  // the flight's last segment
      probe.time_ns = t + 10 * kMs;
      v.push_back(probe);
      pending = true;
      ps = probe.seq;
      pe = probe.seq + probe.payload_len;
      if (!late) {
        TcpPacket dup = c.ack(probe.time_ns + 50 * kUs, c.bytes_sent());
        if (const std::optional<SackBlocks> b = block(ps, pe, dup.ack)) dup.sack = *b;
        v.push_back(dup);
        pending = false;
      }
      t = probe.time_ns + 10 * kMs;
    }
  }
  return v;
}

TEST(SpuriousResend, AResendTheReceiverReportsReceivedTwiceIsNoLoss) {
  // Read as three recoveries before ("Segments were lost", loss in the accounts).
  const auto v = tail_probes([](std::uint32_t s, std::uint32_t e, std::uint32_t) {
    return std::optional<SackBlocks>(SackBlocks{.count = 1, .edges = {s, e}});
  });
  const DirectionReport d = scan_client(testing::write_capture("dsack.pcap", v));
  EXPECT_EQ(d.spurious_resends, 3u);
  EXPECT_EQ(d.retransmissions, 0u);
  EXPECT_EQ(d.retransmitted_segments, 0u);
  EXPECT_EQ(d.loss_events, 0u);
  EXPECT_EQ(d.cause_ns[static_cast<std::size_t>(LimitCause::loss)], 0);
  EXPECT_NE(diagnose(d).problem, LimitCause::loss) << diagnose(d).mechanism;
}

TEST(SpuriousResend, ARecoveryUndoneLateGivesItsLossTimeBack) {
  // The D-SACK on the next flight's first ACK: the recovery had accounted loss by then, and the
  // timeline keeps the same accounts (its loss spans relabelled).
  const auto v = tail_probes([](std::uint32_t s, std::uint32_t e, std::uint32_t) {
    return std::optional<SackBlocks>(SackBlocks{.count = 1, .edges = {s, e}});
  }, true);
  ScanOptions o;
  o.cause_timeline = true;
  StallScanner sc(o);
  for (const auto& p : v) sc.add(p);
  DirectionReport d;
  for (const auto& f : sc.report()) {
    for (const auto& x : f.directions) {
      if (x.sender.port == 40000) d = x;
    }
  }
  EXPECT_EQ(d.spurious_resends, 3u);
  EXPECT_EQ(d.loss_events, 0u);
  EXPECT_EQ(d.cause_ns[static_cast<std::size_t>(LimitCause::loss)], 0);
  core::CauseTimes from_timeline{};
  for (const auto& sp : d.timeline) from_timeline[static_cast<std::size_t>(sp.cause)] += sp.end_ns - sp.start_ns;
  EXPECT_EQ(from_timeline, d.cause_ns);
  // Without the block the same capture accounts loss to those recoveries.
  const DirectionReport plain = scan_client(tail_probes([](std::uint32_t, std::uint32_t, std::uint32_t) {
    return std::optional<SackBlocks>();
  }, true));
  EXPECT_GT(plain.cause_ns[static_cast<std::size_t>(LimitCause::loss)], 0);
}

TEST(SpuriousResend, ADsackWithinTheSecondBlockIsOneToo) {
  // RFC 2883 §4, the second form: the first block within the second (Linux tcp_check_dsack).
  const auto v = tail_probes([](std::uint32_t s, std::uint32_t e, std::uint32_t) {
    return std::optional<SackBlocks>(SackBlocks{.count = 2, .edges = {s, e, s - 1448, e}});
  });
  const DirectionReport d = scan_client(v);
  EXPECT_EQ(d.spurious_resends, 3u);
  EXPECT_EQ(d.loss_events, 0u);
}

TEST(SpuriousResend, AResendWithoutADsackStaysALoss) {
  // No SACK option, or a plain SACK block above the cumulative ACK: nothing says the receiver
  // had the data, the resends stay retransmissions and their recoveries losses.
  for (const bool plain_sack : {false, true}) {
    const auto v = tail_probes([plain_sack](std::uint32_t, std::uint32_t, std::uint32_t ack) {
      return plain_sack ? std::optional<SackBlocks>(SackBlocks{.count = 1, .edges = {ack + 1448, ack + 2896}})
                        : std::nullopt;
    });
    const DirectionReport d = scan_client(v);
    EXPECT_EQ(d.spurious_resends, 0u);
    EXPECT_EQ(d.retransmissions, 3u);
    EXPECT_EQ(d.loss_events, 3u);
    EXPECT_GT(d.cause_ns[static_cast<std::size_t>(LimitCause::loss)], 0);
  }
}

TEST(CaptureArtefacts, ASegmentResentByBackoffIsOneSegmentResent) {
  // tcptrace's discard.solaris.dmp: segments resent two or three times each by timeout backoff
  // read "63 segments resent of 21 sent". Each segment resent counts once; the retransmissions
  // (new datagrams, another IP ID each) are counted apart.
  Conversation c;
  const auto v = writes_with_resends(c, [&c](int i, std::int64_t& t, std::vector<TcpPacket>& out) {
    if (i != 4 && i != 8) return;
    // a flight of two, both lost, each resent three times (backoff)
    out.push_back(c.data(t + 10 * kUs, 1448, true));
    const TcpPacket first = out[out.size() - 2], second = out.back();
    for (std::int64_t rto : {200 * kMs, 600 * kMs, 1400 * kMs}) {
      for (TcpPacket again : {first, second}) {
        again.time_ns = t + rto;
        out.push_back(again);
      }
    }
    t += 1400 * kMs;
  });
  const DirectionReport d = scan_client(testing::write_capture("backoff.pcap", v));
  EXPECT_EQ(d.data_segments, 14u);
  EXPECT_EQ(d.retransmitted_segments, 4u);
  EXPECT_EQ(d.retransmissions, 12u);
  EXPECT_LE(d.retransmitted_segments, d.data_segments);
}

TEST(CaptureArtefacts, AResendOfDataAlreadyAckedIsOneSegmentResent) {
  // A spurious resend: segment 3 sent again after its ACK passed the capture point (no flight
  // entry holds it any more), while segment 6 is in flight; then segment 6 resent. Two segments
  // resent: the first resend is not the one in flight's.
  Conversation c;
  const auto v = writes_with_resends(c, [](int i, std::int64_t& t, std::vector<TcpPacket>& out) {
    if (i != 6) return;
    TcpPacket sixth = out.back();
    TcpPacket again = out[3 + 2 * 3];  // the fourth write (the handshake's 3 frames, then data/ACK pairs)
    again.time_ns = t + 200 * kUs;
    out.push_back(again);
    sixth.time_ns = t + 400 * kUs;
    out.push_back(sixth);
  });
  const DirectionReport d = scan_client(testing::write_capture("spurious.pcap", v));
  EXPECT_EQ(d.retransmissions, 2u);
  EXPECT_EQ(d.retransmitted_segments, 2u);
  EXPECT_LE(d.retransmitted_segments, d.data_segments);
}

// --- too little evidence is too little to judge ---

// N full segments, each filling the receiver's 1536-byte window and ACKed 100 us later.
std::vector<TcpPacket> window_bound(int n) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(60 * kUs), c.handshake_ack(80 * kUs)};
  std::int64_t t = 100 * kUs;
  for (int i = 0; i < n; ++i) {
    v.push_back(c.data(t, 1448, true));
    t += 100 * kUs;
    v.push_back(c.ack(t, c.bytes_sent(), std::uint16_t{12}));
    t += 5 * kUs;
  }
  return v;
}

TEST(Evidence, AFewSegmentsAreTooLittleToJudge) {
  const Diagnosis g = diagnose(scan_client(window_bound(6)));
  EXPECT_FALSE(g.problem.has_value()) << g.mechanism;
  EXPECT_FALSE(g.healthy);
  EXPECT_TRUE(g.mechanism.starts_with("Too little to judge")) << g.mechanism;
  EXPECT_NE(g.mechanism.find("only 6 data segments"), std::string::npos) << g.mechanism;
}

TEST(Evidence, ManySegmentsOverManyRoundTripsAreJudged) {
  const Diagnosis g = diagnose(scan_client(window_bound(30)));
  EXPECT_EQ(g.problem, LimitCause::receiver_window) << g.mechanism;
  EXPECT_FALSE(g.mechanism.starts_with("Too little")) << g.mechanism;
}

TEST(Evidence, ThinEvidenceSaysLikelyAndWhatWouldSettleIt) {
  // 15 segments: judged (10 or more), but under the 30 that settle a pattern.
  const Diagnosis g = diagnose(scan_client(window_bound(15)));
  EXPECT_EQ(g.problem, LimitCause::receiver_window) << g.mechanism;
  EXPECT_TRUE(g.mechanism.starts_with("Likely limited by")) << g.mechanism;
  EXPECT_NE(g.mechanism.find("15 data segments"), std::string::npos) << g.mechanism;
  EXPECT_NE(g.mechanism.find("would settle it"), std::string::npos) << g.mechanism;
}

TEST(Evidence, EnoughEvidenceIsNotCalledLikely) {
  const Diagnosis g = diagnose(scan_client(window_bound(40)));
  EXPECT_TRUE(g.mechanism.starts_with("Limited by")) << g.mechanism;
  EXPECT_EQ(g.mechanism.find("would settle it"), std::string::npos) << g.mechanism;
}

TEST(Evidence, AZeroWindowIsJudgedHoweverFewTheSegments) {
  // One segment, then the receiver's window shut for 2 s: its own statement, not a pattern.
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  v.push_back(c.data(300 * kUs, 1448, true));
  for (int i = 0; i < 8; ++i) v.push_back(c.ack((400 + i * 250'000) * kUs, c.bytes_sent(), std::uint16_t{0}));
  v.push_back(c.ack(2400 * kMs, c.bytes_sent()));
  v.push_back(c.data(2401 * kMs, 1448, true));
  v.push_back(c.ack(2402 * kMs, c.bytes_sent()));
  const Diagnosis g = diagnose(scan_client(v));
  EXPECT_EQ(g.problem, LimitCause::receiver_window) << g.mechanism;
}

TEST(Evidence, OneDirectionWithoutAcksIsTooLittleToJudge) {
  Conversation c;
  std::vector<TcpPacket> v;
  for (int i = 0; i < 40; ++i) v.push_back(c.data(i * 5 * kMs, 1448, true));
  const Diagnosis g = diagnose(scan_client(v));
  EXPECT_FALSE(g.problem.has_value());
  EXPECT_TRUE(g.mechanism.starts_with("Too little to judge")) << g.mechanism;
  EXPECT_NE(g.mechanism.find("no ACK"), std::string::npos) << g.mechanism;
}

TEST(Evidence, ATransferOfFewRoundTripsIsTooLittleToJudge) {
  // 12 segments in two flights over a 30 ms path: two round trips.
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(30 * kMs), c.handshake_ack(30 * kMs + 10 * kUs)};
  std::int64_t t = 31 * kMs;
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 6; ++i) v.push_back(c.data(t + i * 100 * kUs, 1448, i == 5));
    t += 30 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
  }
  const Diagnosis g = diagnose(scan_client(v));
  EXPECT_FALSE(g.problem.has_value());
  EXPECT_TRUE(g.mechanism.starts_with("Too little to judge")) << g.mechanism;
  EXPECT_NE(g.mechanism.find("round trips"), std::string::npos) << g.mechanism;
}

// --- a delayed-ACK stall only where the ACK released the sender ---

// A server (the client port's side sends) answering polls, captured beside it: each answer's ACK
// is held 40 ms by the poller, whose next poll comes NEXT_POLL after that ACK; the answer follows
// the poll in 100 us. RTT: the path's round trip (the handshake's, the banner's ACK's, and added
// to each held ACK).
std::vector<TcpPacket> polled(int polls, std::int64_t next_poll, std::int64_t rtt = 100 * kUs) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(rtt), c.handshake_ack(rtt + 100 * kUs)};
  // A banner first, ACKed at once: the data-to-ACK floor is the path's round trip.
  std::int64_t t = rtt + 200 * kUs;
  v.push_back(c.data(t, 20, true));
  t += rtt;
  v.push_back(c.ack(t, c.bytes_sent()));
  t += kMs;
  std::uint32_t polls_sent = 0;
  for (int i = 0; i < polls; ++i) {
    TcpPacket poll = c.ack(t, c.bytes_sent());
    poll.seq += polls_sent;
    poll.payload_len = 12;
    poll.flags |= tcp_flag::psh;
    polls_sent += 12;
    v.push_back(poll);
    t += 100 * kUs;
    v.push_back(c.data(t, 200, true));
    if (i + 1 == polls) break;  // the last answer's ACK is not in the capture
    t += rtt + 40 * kMs;
    TcpPacket held = c.ack(t, c.bytes_sent());
    held.seq += polls_sent;
    v.push_back(held);
    t += next_poll;
  }
  return v;
}

TEST(HeldAck, AnAckThatReleasedNothingIsNoDelayedAckStall) {
  // The poller's next request comes 60 ms after the held ACK: the answerer waited on the poll.
  const DirectionReport d = scan_client(polled(20, 60 * kMs));
  EXPECT_EQ(count(d, StallKind::delayed_ack), 0u);
  EXPECT_EQ(d.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)], 0);
  const Diagnosis g = diagnose(d);
  EXPECT_NE(g.problem, LimitCause::delayed_ack) << g.mechanism;
  EXPECT_EQ(g.mechanism.find("delayed-ACK stalls ("), std::string::npos) << g.mechanism;
}

TEST(HeldAck, BesideTheSenderAnAckReleasesAtOnceNotARoundTripLater) {
  // A 25 ms path captured beside the answerer: an ACK it waited for lets its data go within its
  // reaction time, not a round trip later. The poller's next request 15 ms after the held ACK
  // (under a round trip) released nothing either (tcpdump's ssh.pcap: a 48-byte key exchange
  // message whose next write waited 29.7 ms past the ACK, for the server's reply).
  const DirectionReport d = scan_client(polled(20, 15 * kMs, 25 * kMs));
  EXPECT_EQ(count(d, StallKind::delayed_ack), 0u);
  EXPECT_EQ(d.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)], 0);
  EXPECT_NE(diagnose(d).problem, LimitCause::delayed_ack);
}

TEST(HeldAck, AnAckThatReleasedTheSenderIsAStall) {
  // The next write leaves 50 us after each held ACK: the sender was waiting for it.
  const DirectionReport d = scan_client(stop_and_wait(12, 40 * kMs));
  EXPECT_EQ(count(d, StallKind::delayed_ack), 12u);
  EXPECT_EQ(diagnose(d).problem, LimitCause::delayed_ack);
}

// --- application-limited: idle with nothing in flight, the window open ---

// Full segments every SPACING over a 10 ms path, each ACKed 20 us after it (captured beside the
// receiver, which ACKs each at once): nothing is in flight between them.
std::vector<TcpPacket> one_at_a_time(int n, std::int64_t spacing) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(10 * kMs), c.handshake_ack(10 * kMs + 10 * kUs)};
  std::int64_t t = 11 * kMs;
  for (int i = 0; i < n; ++i) {
    v.push_back(c.data(t, 1448, true));
    v.push_back(c.ack(t + 20 * kUs, c.bytes_sent()));
    t += spacing;
  }
  return v;
}

TEST(AppLimited, FullSegmentsAtTheApplicationsPaceAreTheApplication) {
  // A writer of one segment every 50 ms: its spacing is its own, not a bottleneck's frame time.
  const Diagnosis g = diagnose(scan_client(one_at_a_time(40, 50 * kMs)));
  EXPECT_EQ(g.dominant, LimitCause::sender_app) << g.mechanism;
  EXPECT_FALSE(g.problem.has_value()) << g.mechanism;
}

TEST(AppLimited, FullSegmentsAFrameTimeApartAreTheNetwork) {
  // 120 us apart: a 100 Mbit/s bottleneck's frame time, the segments queued behind each other.
  const Diagnosis g = diagnose(scan_client(one_at_a_time(40, 120 * kUs)));
  EXPECT_EQ(g.dominant, LimitCause::network) << g.mechanism;
}

// --- the network's time names a full path only where the capture shows one ---

// An interactive exchange over a 25 ms path, captured beside the client (tcpdump's ssh.pcap: its
// 2 KB flight had been called "path full: line rate or congestion window"): each 60-byte write
// is ACKed a round trip later, the server's 44-byte answer follows 2 ms after that ACK, and the
// client's next write 100 us after the answer.
std::vector<TcpPacket> interactive(int writes) {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(25 * kMs), c.handshake_ack(25 * kMs + 10 * kUs)};
  std::int64_t t = 26 * kMs;
  for (int i = 0; i < writes; ++i) {
    v.push_back(c.data(t, 60, true));
    t += 25 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 2 * kMs;
    v.push_back(c.reply(t, 44));
    t += 100 * kUs;
  }
  return v;
}

TEST(PathFull, AnInteractiveFlightsRoundTripsAreNoFullPath) {
  const DirectionReport d = scan_client(interactive(40));
  const Diagnosis g = diagnose(d);
  ASSERT_EQ(g.dominant, LimitCause::network) << g.mechanism;
  EXPECT_FALSE(d.path_full);
  EXPECT_NE(g.mechanism.find("not shown full: at most 60 bytes in flight"), std::string::npos) << g.mechanism;
  EXPECT_EQ(g.mechanism.find("path full"), std::string::npos) << g.mechanism;
  EXPECT_EQ(g.mechanism.find("The path is full"), std::string::npos) << g.mechanism;
}

TEST(PathFull, SegmentsAFrameTimeApartAreAFullPath) {
  const DirectionReport d = scan_client(one_at_a_time(40, 120 * kUs));
  const Diagnosis g = diagnose(d);
  ASSERT_EQ(g.dominant, LimitCause::network) << g.mechanism;
  EXPECT_TRUE(d.path_full);
  EXPECT_NE(g.mechanism.find("The path is full"), std::string::npos) << g.mechanism;
}

// --- a hold fits at most one stack's timer ---

TEST(StackFit, AFortyMillisecondHoldFromATtl128ReceiverFitsNoWindowsTimer) {
  const Diagnosis g = diagnose(scan_client(stop_and_wait(12, 44 * kMs), 128));
  EXPECT_EQ(g.receiver_stack.evidence.find("fits Windows"), std::string::npos) << g.receiver_stack.evidence;
  EXPECT_NE(g.receiver_stack.evidence.find("fits no Windows timer"), std::string::npos) << g.receiver_stack.evidence;
  EXPECT_EQ(g.timer_fits.size(), 1u);
}

TEST(StackFit, AFiftyFiveMillisecondHoldFitsNoLinuxTimer) {
  // Linux's 40 ms timer +-25 % ends at 50 ms: a 55 ms hold is not fitted to Linux.
  const Diagnosis g = diagnose(scan_client(stop_and_wait(12, 55 * kMs), 64));
  EXPECT_EQ(g.receiver_stack.evidence.find("fits Linux"), std::string::npos) << g.receiver_stack.evidence;
  for (const auto& f : g.timer_fits) EXPECT_FALSE(f.starts_with("Linux")) << f;
}

TEST(StackFit, AFortyFiveMillisecondHoldFitsLinux) {
  const Diagnosis g = diagnose(scan_client(stop_and_wait(12, 45 * kMs), 64));
  EXPECT_EQ(g.receiver_stack.family, StackFamily::linux_) << g.receiver_stack.evidence;
}

TEST(StackFit, ATwoHundredMillisecondHoldFromATtl128ReceiverFitsWindows) {
  const Diagnosis g = diagnose(scan_client(stop_and_wait(12, 200 * kMs), 128));
  EXPECT_EQ(g.receiver_stack.family, StackFamily::windows);
  EXPECT_NE(g.receiver_stack.evidence.find("fits Windows"), std::string::npos) << g.receiver_stack.evidence;
}

// --- offloaded super-segments hide the writes ---

TEST(Offload, SegmentsLargerThanTheMssHideWriteBoundaries) {
  // Captured at a sender with TSO: each 130966-byte write as two "segments" of the stack, the
  // second's ACK held 200 ms. "each 130966-byte write in 2 segments" and "disable Nagle
  // (TCP_NODELAY)" before.
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int w = 0; w < 12; ++w) {
    v.push_back(c.data(t, 65160));
    v.push_back(c.ack(t + 5 * kMs, c.bytes_sent()));
    v.push_back(c.data(t + 5 * kMs + 50 * kUs, 65806, true));
    t += 205 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
  }
  const DirectionReport d = scan_client(v);
  const Diagnosis g = diagnose(d);
  EXPECT_TRUE(offloaded_segments(d));
  EXPECT_TRUE(has_line(g.capture_warnings, "larger than the announced MSS")) << g.mechanism;
  EXPECT_FALSE(g.write_size.has_value());
  EXPECT_EQ(g.mechanism.find("-byte write in"), std::string::npos) << g.mechanism;
  EXPECT_FALSE(has_line(g.fixes, "TCP_NODELAY")) << g.mechanism;
  EXPECT_FALSE(has_line(g.would_not_help, "TCP_NODELAY")) << g.mechanism;
}

TEST(Offload, SegmentsOfTheMssAreNoOffload) {
  const DirectionReport d = scan_client(stop_and_wait(12, 200 * kMs));
  const Diagnosis g = diagnose(d);
  EXPECT_FALSE(offloaded_segments(d));
  EXPECT_FALSE(has_line(g.capture_warnings, "larger than the announced MSS")) << g.mechanism;
  EXPECT_TRUE(g.write_size.has_value());
}

// --- only a problem cause of core's table is named the problem ---

// Half of a held-ACK capture's time given to each cause of the table in turn (the rest to the
// network): the diagnosis names it the problem exactly when its row says it is one
// (core::LimitCauseRow::problem), so a new cause's row decides it.
TEST(ProblemColumn, OnlyAProblemCauseIsNamedTheProblem) {
  const DirectionReport held = scan_client(stop_and_wait(12, 40 * kMs));
  ASSERT_GT(held.duration_ns, 0);
  ASSERT_GT(held.bytes_acked, 0u);
  for (const core::LimitCauseRow& r : core::kLimitCauseTable) {
    DirectionReport d = held;
    d.cause_ns = {};
    d.cause_ns[static_cast<std::size_t>(r.cause)] = d.duration_ns / 2;
    d.cause_ns[static_cast<std::size_t>(LimitCause::network)] += d.duration_ns - d.duration_ns / 2;
    const Diagnosis g = diagnose(d);
    EXPECT_EQ(g.problem.has_value(), r.problem) << r.key;
    if (r.problem) {
      EXPECT_EQ(g.problem, r.cause) << r.key;
    }
  }
}

}  // namespace
}  // namespace ackstall::pcap
