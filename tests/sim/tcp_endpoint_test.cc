#include "ackstall/sim/tcp_endpoint.h"

#include <gtest/gtest.h>

#include <deque>

namespace ackstall::sim {
namespace {

// Two endpoints joined by an instantaneous, lossless pipe; no engine: the test is the caller
// that a sans-IO endpoint needs. Timers are only recorded.
struct Pair {
  TcpEndpoint ep[2];
  std::deque<std::pair<int, Segment>> wire;  // (destination, segment)
  std::vector<Segment> sent[2];
  std::vector<TimerRequest> timers[2];
  bool writable[2] = {false, false};
  Actions a;

  Pair(const TcpProfile& p0, const TcpProfile& p1)
      : ep{TcpEndpoint(EndpointParams{p0, 1500, Nanos::zero(), 0}),
           TcpEndpoint(EndpointParams{p1, 1500, Nanos::zero(), 0})} {}

  void collect(int i) {
    for (const auto& s : a.out) {
      sent[i].push_back(s);
      wire.emplace_back(1 - i, s);
    }
    for (const auto& t : a.timers) timers[i].push_back(t);
    if (a.writable) writable[i] = true;
    a.clear();
  }
  void pump(Nanos now, bool read_all = false) {
    while (!wire.empty()) {
      auto [dst, s] = wire.front();
      wire.pop_front();
      ep[dst].on_segment(now, s, a);
      collect(dst);
      if (read_all) {
        ep[dst].read(now, 1 << 30, a);
        collect(dst);
      }
    }
  }
  void connect(int initiator) {
    ep[1 - initiator].listen();
    ep[initiator].connect(Nanos::zero(), a);
    collect(initiator);
    pump(Nanos::us(1));
  }
  bool delack_armed(int i) const {
    bool armed = false;
    for (const auto& t : timers[i])
      if (t.kind == TimerKind::delack) armed = !t.at.is_never();
    return armed;
  }
};

TEST(Handshake, XpInitiatorGetsNoTimestamps) {
  Pair p(TcpProfile::winxp(), TcpProfile::openbsd39());
  p.connect(0);
  ASSERT_TRUE(p.ep[0].established());
  ASSERT_TRUE(p.ep[1].established());
  EXPECT_FALSE(p.sent[0][0].opts.timestamps.has_value());  // XP's SYN does not ask (§1)
  EXPECT_EQ(p.sent[0][0].opts.mss, 1460);
  EXPECT_FALSE(p.sent[1][0].opts.timestamps.has_value());  // OpenBSD answers only if asked
  EXPECT_FALSE(p.ep[0].timestamps());
  EXPECT_EQ(p.ep[0].maxseg(), 1460);
  EXPECT_EQ(p.ep[1].rcvbuf(), 17520);          // 16384 rounded up to 12 * 1460 (§3)
}

TEST(Handshake, BsdInitiatorNegotiatesTimestampsWithXp) {
  Pair p(TcpProfile::winxp(), TcpProfile::openbsd39());
  p.connect(1);
  EXPECT_TRUE(p.sent[1][0].opts.timestamps.has_value());   // OpenBSD asks
  EXPECT_TRUE(p.sent[0][0].opts.timestamps.has_value());   // XP accepts
  EXPECT_TRUE(p.ep[0].timestamps());
  EXPECT_EQ(p.ep[0].maxseg(), 1448);           // 1460 - 12 (§1)
  EXPECT_EQ(p.ep[1].rcvbuf(), 17376);          // 12 * 1448 (§3)
  EXPECT_EQ(p.sent[1][0].option_bytes(), 20);  // MSS + wscale + timestamps
}

TEST(DataPath, SeedStallShape) {
  // XP sends one 8192-byte send: five full segments, the 892-byte tail held by Nagle until the
  // fifth is ACKed; the tail carries PSH and waits for OpenBSD's delayed ACK.
  Pair p(TcpProfile::winxp(), TcpProfile::openbsd39());
  p.connect(0);
  p.sent[0].clear();
  const auto o = p.ep[0].send(Nanos::us(10), 8192, true, p.a);
  p.collect(0);
  EXPECT_EQ(o.accepted, 8192);
  EXPECT_TRUE(p.ep[0].send(Nanos::us(11), 8192, true, p.a).would_block);
  p.collect(0);
  p.pump(Nanos::us(20));
  // Segments 2 and 4 were ACKed at once, the fifth waits; the reader now drains the queue and
  // the window update (adv = 7300 >= 2 * 1460) ACKs it, releasing the Nagle-held tail.
  EXPECT_TRUE(p.delack_armed(1));
  p.ep[1].read(Nanos::us(30), 1 << 20, p.a);
  p.collect(1);
  EXPECT_TRUE(p.sent[1].back().window_update);
  p.pump(Nanos::us(40));
  p.ep[1].read(Nanos::us(50), 1 << 20, p.a);  // the tail: opens only 892, no update
  p.collect(1);
  std::vector<std::int32_t> lens;
  for (const auto& s : p.sent[0]) if (s.len > 0) lens.push_back(s.len);
  ASSERT_EQ(lens, (std::vector<std::int32_t>{1460, 1460, 1460, 1460, 1460, 892}));
  const Segment& tail = p.sent[0].back();
  EXPECT_TRUE(tail.has(tcp_flag::psh));
  for (std::size_t i = 0; i + 1 < p.sent[0].size(); ++i) EXPECT_FALSE(p.sent[0][i].has(tcp_flag::psh));
  EXPECT_FALSE(p.ep[0].all_acked());   // the tail's ACK is delayed
  EXPECT_TRUE(p.delack_armed(1));
  EXPECT_FALSE(p.writable[0]);         // no FD_WRITE until the whole send is ACKed
  // The delayed-ACK timer fires: the whole send completes, FD_WRITE.
  p.ep[1].on_timer(Nanos::ms(200), TimerKind::delack, p.a);
  p.collect(1);
  EXPECT_TRUE(p.sent[1].back().delayed_ack);
  p.pump(Nanos::ms(200));
  EXPECT_TRUE(p.ep[0].all_acked());
  EXPECT_TRUE(p.writable[0]);
}

TEST(DataPath, AckOnPushAcksTheTailAtOnce) {
  TcpProfile bsd = TcpProfile::openbsd39();
  bsd.ack.ack_on_push = true;
  Pair p(TcpProfile::winxp(), bsd);
  p.connect(0);
  p.ep[0].send(Nanos::us(10), 8192, true, p.a);
  p.collect(0);
  p.pump(Nanos::us(20));
  p.ep[1].read(Nanos::us(30), 1 << 20, p.a);  // window update ACKs the fifth segment
  p.collect(1);
  p.pump(Nanos::us(40));                       // the PSHed tail is ACKed on arrival
  EXPECT_TRUE(p.ep[0].all_acked());
  EXPECT_TRUE(p.writable[0] || !p.ep[0].send_buffer().writer_waiting());
}

TEST(DataPath, OutOfOrderSegmentsWaitAndTheFilledHoleIsAckedAtOnce) {
  // Three segments of one send (OpenBSD's initial window); the wire loses the second. The
  // receiver keeps the third (a duplicate ACK at once), and the retransmission of the second is
  // ACKed at once past both (reassembly.h: RFC 5681 4.2, BSD tcp_reass), not left to the
  // delayed-ACK timer.
  Pair p(TcpProfile::openbsd39(), TcpProfile::openbsd39());
  p.connect(0);
  const std::int32_t m = p.ep[0].maxseg();  // 1448: both ask for timestamps
  p.ep[0].send(Nanos::us(10), 3 * m, true, p.a);
  p.collect(0);
  ASSERT_EQ(p.wire.size(), 3u);
  const Segment lost = p.wire[1].second;
  p.wire.erase(p.wire.begin() + 1);
  p.sent[1].clear();
  p.pump(Nanos::us(20));
  EXPECT_EQ(p.ep[1].rcv_nxt(), 1 + m);
  EXPECT_EQ(p.ep[1].readable(), m);
  // The first segment alone waits for the delayed-ACK timer; the third is out of order: ACK at once.
  ASSERT_EQ(p.sent[1].size(), 1u);
  EXPECT_FALSE(p.sent[1][0].delayed_ack);
  EXPECT_EQ(p.sent[1].back().ack, 1 + m);
  p.sent[1].clear();
  p.ep[1].on_segment(Nanos::us(30), lost, p.a);  // the retransmission
  p.collect(1);
  ASSERT_EQ(p.sent[1].size(), 1u);
  EXPECT_EQ(p.sent[1][0].ack, 1 + 3 * m);
  EXPECT_FALSE(p.sent[1][0].delayed_ack);
  EXPECT_FALSE(p.delack_armed(1));
  EXPECT_EQ(p.ep[1].readable(), 3 * m);
  EXPECT_EQ(p.ep[1].counters().bytes_received, 3 * m);
  // A go-back-N copy of bytes already received adds nothing.
  Segment old = lost;
  old.len = 2 * m;
  p.ep[1].on_segment(Nanos::us(40), old, p.a);
  p.collect(1);
  EXPECT_EQ(p.ep[1].counters().bytes_received, 3 * m);
  EXPECT_EQ(p.ep[1].invariant_violation(), nullptr);
}

TEST(DataPath, RetransmissionOverlappingRcvNxtAddsOnlyItsNewBytes) {
  // After an RTO the sender goes back to snd_una and may coalesce: a segment that starts in
  // bytes already received is trimmed (BSD tcp_input, todrop), not dropped whole.
  Pair p(TcpProfile::openbsd39(), TcpProfile::openbsd39());
  p.connect(0);
  const std::int32_t m = p.ep[0].maxseg();
  p.ep[0].send(Nanos::us(10), 3 * m, true, p.a);
  p.collect(0);
  ASSERT_EQ(p.wire.size(), 3u);
  Segment both = p.wire[0].second;  // the first again, coalesced with the (lost) second
  both.len = 2 * m;
  p.wire.pop_back();
  p.wire.pop_back();
  p.pump(Nanos::us(20));
  ASSERT_EQ(p.ep[1].rcv_nxt(), 1 + m);
  p.ep[1].on_segment(Nanos::us(30), both, p.a);
  p.collect(1);
  EXPECT_EQ(p.ep[1].rcv_nxt(), 1 + 2 * m);
  EXPECT_EQ(p.ep[1].counters().bytes_received, 2 * m);
  EXPECT_EQ(p.ep[1].invariant_violation(), nullptr);
  // A copy of those bytes that now carries the FIN: the bytes are old, the FIN is new.
  Segment fin = both;
  fin.flags |= tcp_flag::fin;
  p.ep[1].on_segment(Nanos::us(40), fin, p.a);
  p.collect(1);
  EXPECT_EQ(p.ep[1].rcv_nxt(), 1 + 2 * m + 1);
  EXPECT_EQ(p.ep[1].counters().bytes_received, 2 * m);
  EXPECT_EQ(p.ep[1].invariant_violation(), nullptr);
}

TEST(Persist, AProbeAcceptedIntoAZeroWindowDoesNotRestartTheTimerAtZero) {
  // Found on the map (2026-12-04): a receiver that still has room but advertises zero accepts a
  // probe's byte and ACKs it with window 0. That ACK moved snd_una and reset the persist backoff
  // while the persist timer ran; the timer then re-armed at now + 0 and probed at one instant
  // forever. The backoff restarts from the RTO (tcp_setpersist / tcp_probe_timer).
  Pair p(TcpProfile::winxp(), TcpProfile::openbsd39());
  p.connect(0);
  p.ep[0].send(Nanos::us(10), 4 * 1460, true, p.a);  // XP's initial window sends 2 of the 4
  p.collect(0);
  p.wire.clear();
  const auto ack = [&](std::int64_t n, Nanos now) {  // an ACK of n data bytes, window 0
    Segment s;
    s.seq = 1;
    s.ack = 1 + n;
    s.flags = tcp_flag::ack;
    s.wnd = 0;
    p.ep[0].on_segment(now, s, p.a);
    p.collect(0);
  };
  const auto last_persist = [&]() {
    Nanos at = Nanos::never();
    for (const auto& t : p.timers[0]) if (t.kind == TimerKind::persist) at = t.at;
    return at;
  };
  ack(2 * 1460, Nanos::ms(1));  // all sent is ACKed, the window closed: persist
  ASSERT_TRUE(p.ep[0].timer_armed(TimerKind::persist));
  Nanos now = last_persist();
  p.ep[0].on_timer(now, TimerKind::persist, p.a);  // the probe: one byte
  p.collect(0);
  ASSERT_FALSE(p.wire.empty());
  EXPECT_EQ(p.wire.back().second.len, 1);
  ack(2 * 1460 + 1, now + Nanos::us(200));  // the probe's byte accepted, the window still zero
  ASSERT_TRUE(p.ep[0].timer_armed(TimerKind::persist));
  now = last_persist();
  p.ep[0].on_timer(now, TimerKind::persist, p.a);
  p.collect(0);
  EXPECT_GE(last_persist(), now + p.ep[0].rto()) << "persist re-armed at " << last_persist().count();
}

TEST(DataPath, BytesReadOnceInOrderAcrossManySends) {
  Pair p(TcpProfile::openbsd39(), TcpProfile::openbsd39());
  p.connect(0);
  std::int64_t sent = 0, read = 0;
  Nanos t = Nanos::us(10);
  for (int i = 0; i < 200; ++i) {
    const auto o = p.ep[0].send(t, 1000 + i * 37, true, p.a);
    p.collect(0);
    sent += o.accepted;
    p.pump(t);
    read += p.ep[1].read(t, 3000, p.a);
    p.collect(1);
    p.pump(t);
    // Fire any delayed ACK so the sender keeps going.
    p.ep[1].on_timer(t, TimerKind::delack, p.a);
    p.collect(1);
    p.pump(t);
    t += Nanos::ms(1);
    ASSERT_LE(read, sent);
    ASSERT_GE(p.ep[0].snd_wnd(), 0);
  }
  for (int i = 0; i < 100 && read < sent; ++i) {
    read += p.ep[1].read(t, 1 << 20, p.a);
    p.collect(1);
    p.ep[1].on_timer(t, TimerKind::delack, p.a);
    p.collect(1);
    p.pump(t);
  }
  EXPECT_EQ(read, sent);
  EXPECT_EQ(p.ep[1].counters().bytes_received, sent);
  EXPECT_EQ(p.ep[0].counters().retransmits, 0u);
}

TEST(DataPath, NoDelayMinshallSendsTheTail) {
  TcpProfile s = TcpProfile::winxp();
  s.nagle = NagleKind::minshall;
  Pair p(s, TcpProfile::openbsd39());
  p.connect(0);
  p.sent[0].clear();
  // cwnd 2: the first two segments, then the rest as ACKs return; Minshall lets the short tail
  // go while full segments are un-ACKed.
  p.ep[0].send(Nanos::us(10), 8192, true, p.a);
  p.collect(0);
  p.pump(Nanos::us(20), true);
  EXPECT_EQ(p.sent[0].back().len, 892);
}

// Linux >= 5.4 offers about 64 KB from the start (tcp_select_initial_window: min(space, U16_MAX)
// in whole MSS; the lab's SYN-ACK: 65160); before, ten segments (TCP_DEFAULT_INIT_RCVWND) that
// tcp_grow_window then raises. What the sender learns from the first ACK.
TEST(LinuxWindow, InitialReceiveWindowOfLinux54AndBefore) {
  const auto first_ack_window = [](std::int64_t initial_rwnd) {
    TcpProfile rx = TcpProfile::openbsd39();
    rx.receive_window = ReceiveWindowKind::linux;
    rx.rcvbuf = 87380;
    rx.round_rcvbuf_to_mss = false;
    rx.linux_initial_rwnd = initial_rwnd;
    Pair p(TcpProfile::winxp(), rx);
    p.connect(0);
    p.ep[0].send(Nanos::us(10), 1460, true, p.a);
    p.collect(0);
    p.pump(Nanos::us(20), true);
    return p.ep[0].snd_wnd();
  };
  const std::int64_t old_kernel = first_ack_window(0), new_kernel = first_ack_window(65535);
  EXPECT_LE(old_kernel, 14 * 1460);  // ten segments, grown by at most a few
  EXPECT_GE(new_kernel, 44 * 1460);  // 65535 rounded down to whole MSS, and more as it grows
  EXPECT_LE(new_kernel, 87380);
}

}  // namespace
}  // namespace ackstall::sim
