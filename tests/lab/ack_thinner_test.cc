// The ACK thinner: a receiver that ACKs every segment, forwarded with Windows' rule (the sim's
// AckPolicyKind::windows: every 2nd segment at once, else the newest ACK 200 ms after the first
// held one); duplicates, data, SYN/FIN/RST and the ACK of a FIN pass at once; flows apart.
#include "ackstall/lab/ack_thinner.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "lab_frames.h"

namespace ackstall::lab {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::uint32_t kIss = 1000;  // the sender's first data byte
constexpr std::uint32_t kMss = 1448;

// The sender's n-th full data segment (0-based) and the receiver's ACK of it.
Seg data(int n) { return {.from_receiver = false, .seq = kIss + n * kMss, .ack = 1, .flags = kTcpAck, .payload = kMss}; }
Seg ack_of(int n) { return {.seq = 1, .ack = kIss + (n + 1) * kMss}; }

using V = AckThinner::Verdict;

struct Fixture {
  AckThinner t;
  std::vector<std::uint32_t> released;  // ack numbers the timer forwarded
  void send(const Seg& s) { t.on_sender_frame(frame(s)); }
  V recv(std::int64_t now, const Seg& s) { return t.on_receiver_frame(now, frame(s)); }
  void tick(std::int64_t now) {
    t.release(now, [&](std::span<const std::byte> f) { released.push_back(parse_tcp_frame(f)->ack); });
  }
};

TEST(LabAckThinner, ParsesIpv4AndIpv6TcpAndSkipsTheRest) {
  Seg s = data(3);
  auto f = parse_tcp_frame(frame(s));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->seq, kIss + 3 * kMss);
  EXPECT_EQ(f->payload, kMss);
  EXPECT_EQ(f->sport, 40000);
  EXPECT_EQ(f->dport, 5001);
  EXPECT_EQ(f->flags, kTcpAck);
  s.ipv6 = true;
  f = parse_tcp_frame(frame(s));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->payload, kMss);
  EXPECT_EQ(f->src[0], 10);
  auto arp = frame(s);
  arp[10 + 12] = std::byte{0x08};
  arp[10 + 13] = std::byte{0x06};
  EXPECT_FALSE(parse_tcp_frame(arp));
  EXPECT_FALSE(parse_tcp_frame(std::vector<std::byte>(30)));
}

TEST(LabAckThinner, EverySecondSegmentIsAckedAtOnceTheFirstIsHeld) {
  Fixture x;
  x.send(data(0));
  EXPECT_EQ(x.recv(0, ack_of(0)), V::hold);
  x.send(data(1));
  EXPECT_EQ(x.recv(1 * kMs, ack_of(1)), V::pass);  // 2 segments unACKed: TcpAckFrequency 2
  EXPECT_FALSE(x.t.next_due()) << "the pass covers the held ACK";
  x.send(data(2));
  x.send(data(3));
  EXPECT_EQ(x.recv(2 * kMs, ack_of(2)), V::hold);
  EXPECT_EQ(x.recv(2 * kMs, ack_of(3)), V::pass);
  EXPECT_EQ(x.t.held(), 2u);
  EXPECT_EQ(x.t.passed(), 2u);
  x.tick(1000 * kMs);
  EXPECT_TRUE(x.released.empty());
}

TEST(LabAckThinner, ALoneSegmentsAckLeaves200msAfterItArrived) {
  Fixture x;
  x.send(data(0));
  EXPECT_EQ(x.recv(5 * kMs, ack_of(0)), V::hold);
  EXPECT_EQ(x.t.next_due(), 205 * kMs);
  x.tick(204 * kMs);
  EXPECT_TRUE(x.released.empty());
  x.tick(205 * kMs);
  EXPECT_EQ(x.released, std::vector<std::uint32_t>{kIss + kMss});
  EXPECT_EQ(x.t.timed_out(), 1u);
  EXPECT_FALSE(x.t.next_due());
  // The count started again: the next lone segment waits its own 200 ms.
  x.send(data(1));
  EXPECT_EQ(x.recv(300 * kMs, ack_of(1)), V::hold);
  EXPECT_EQ(x.t.next_due(), 500 * kMs);
}

TEST(LabAckThinner, AWindowUpdateOfTheHeldAckReplacesItAndKeepsItsTimer) {
  Fixture x;
  x.send(data(0));
  EXPECT_EQ(x.recv(0, ack_of(0)), V::hold);
  Seg update = ack_of(0);
  update.window = 900;  // the read opened the window: Linux's window update, same ack
  EXPECT_EQ(x.recv(50 * kMs, update), V::hold);
  EXPECT_EQ(x.t.replaced(), 1u);
  EXPECT_EQ(x.t.next_due(), 200 * kMs) << "the timer runs from the first held ACK";
  std::vector<std::uint16_t> windows;
  x.t.release(200 * kMs, [&](std::span<const std::byte> f) { windows.push_back(parse_tcp_frame(f)->window); });
  EXPECT_EQ(windows, std::vector<std::uint16_t>{900}) << "the newest ACK leaves";
}

TEST(LabAckThinner, ANewerAckReplacesTheHeldOneUnderAHigherFrequency) {
  Fixture x;
  x.t = AckThinner({.ack_frequency = 3, .delack_timeout_ns = 200 * kMs});
  for (int i = 0; i < 3; ++i) x.send(data(i));
  EXPECT_EQ(x.recv(0, ack_of(0)), V::hold);
  EXPECT_EQ(x.recv(10 * kMs, ack_of(1)), V::hold);
  EXPECT_EQ(x.t.replaced(), 1u);
  EXPECT_EQ(x.t.next_due(), 200 * kMs);
  EXPECT_EQ(x.recv(20 * kMs, ack_of(2)), V::pass);
}

TEST(LabAckThinner, OneAckCoveringTwoSegmentsPassesAtOnce) {
  Fixture x;
  x.send(data(0));
  x.send(data(1));
  EXPECT_EQ(x.recv(0, ack_of(1)), V::pass);  // the receiver coalesced: 2 segments unACKed
}

TEST(LabAckThinner, SegmentsAreCountedNotBytes) {
  Fixture x;
  Seg small = data(0);
  small.payload = 100;  // a short segment counts as one, like a full one (Windows counts segments)
  x.send(small);
  EXPECT_EQ(x.recv(0, {.seq = 1, .ack = kIss + 100}), V::hold);
  Seg next{.from_receiver = false, .seq = kIss + 100, .ack = 1, .payload = 200};
  x.send(next);
  EXPECT_EQ(x.recv(1 * kMs, {.seq = 1, .ack = kIss + 300}), V::pass);
}

TEST(LabAckThinner, AGsoFrameCountsItsSegments) {
  Fixture x;
  Seg big = data(0);
  big.payload = 3 * kMss;
  big.gso_size = kMss;
  x.send(big);
  EXPECT_EQ(x.recv(0, ack_of(0)), V::hold);
  EXPECT_EQ(x.recv(0, ack_of(1)), V::pass);
  EXPECT_EQ(x.recv(0, ack_of(2)), V::hold);
}

TEST(LabAckThinner, DuplicateAcksPassAtOnce) {
  Fixture x;
  x.send(data(0));
  x.send(data(1));
  EXPECT_EQ(x.recv(0, ack_of(1)), V::pass);
  // Segment 2 lost: segments 3 and 4 bring duplicate ACKs of segment 1's end (RFC 5681 §4.2).
  x.send(data(2));
  x.send(data(3));
  x.send(data(4));
  EXPECT_EQ(x.recv(1 * kMs, ack_of(1)), V::pass);
  EXPECT_EQ(x.recv(2 * kMs, ack_of(1)), V::pass);
  EXPECT_FALSE(x.t.next_due());
  // A duplicate of a held ACK (same window) is one too: it passes, the held copy goes.
  EXPECT_EQ(x.recv(3 * kMs, ack_of(2)), V::hold);
  EXPECT_EQ(x.recv(4 * kMs, ack_of(2)), V::pass);
  EXPECT_FALSE(x.t.next_due());
}

TEST(LabAckThinner, SynFinRstDataAndTheAckOfAFinPassAtOnce) {
  Fixture x;
  x.send({.from_receiver = false, .seq = kIss - 1, .ack = 0, .flags = kTcpSyn, .payload = 0});
  EXPECT_EQ(x.recv(0, {.seq = 0, .ack = kIss, .flags = kTcpSyn | kTcpAck}), V::pass);
  x.send(data(0));
  EXPECT_EQ(x.recv(1 * kMs, {.seq = 1, .ack = kIss + kMss, .payload = 10}), V::pass) << "an ACK with data";
  Seg fin = data(1);
  fin.flags = kTcpAck | kTcpFin;
  x.send(fin);
  EXPECT_EQ(x.recv(2 * kMs, {.seq = 1, .ack = kIss + 2 * kMss + 1}), V::pass) << "the ACK of the sender's FIN";
  EXPECT_EQ(x.recv(3 * kMs, {.seq = 1, .ack = kIss + 2 * kMss + 1, .flags = kTcpAck | kTcpFin}), V::pass);
  x.send(data(5));
  EXPECT_EQ(x.recv(4 * kMs, {.seq = 1, .ack = 0, .flags = kTcpRst}), V::pass);
  EXPECT_FALSE(x.t.next_due());
}

TEST(LabAckThinner, AnythingButTcpPasses) {
  Fixture x;
  auto f = frame(ack_of(0));
  f[10 + 14 + 9] = std::byte{17};  // UDP
  EXPECT_EQ(x.t.on_receiver_frame(0, f), V::pass);
}

TEST(LabAckThinner, FlowsAreCountedApart) {
  Fixture x;
  Seg d0 = data(0), d0b = data(0);
  d0b.sport_a = 40001;
  x.send(d0);
  x.send(d0b);
  Seg a0b = ack_of(0);
  a0b.sport_a = 40001;
  EXPECT_EQ(x.recv(0, ack_of(0)), V::hold);
  EXPECT_EQ(x.recv(10 * kMs, a0b), V::hold) << "one segment each: neither flow has two";
  x.tick(200 * kMs);
  EXPECT_EQ(x.released.size(), 1u);
  x.tick(210 * kMs);
  EXPECT_EQ(x.released.size(), 2u);
}

TEST(LabAckThinner, ARetransmissionIsNotCountedTwice) {
  Fixture x;
  x.send(data(0));
  x.send(data(0));  // the same segment again
  EXPECT_EQ(x.recv(0, ack_of(0)), V::hold);
  EXPECT_TRUE(x.t.next_due());
}

}  // namespace
}  // namespace ackstall::lab
