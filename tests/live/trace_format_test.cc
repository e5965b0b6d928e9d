#include "ackstall/live/trace_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "ackstall/live/trace_events.h"

namespace ackstall::live {
namespace {

std::string data_file(const char* name) {
  std::ifstream in(std::string(ACKSTALL_SOURCE_DIR) + "/tests/live/data/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

EventFormat format_of(const char* file, const char* name) {
  auto f = parse_event_format(data_file(file), name);
  EXPECT_TRUE(f) << f.error();
  return f ? *f : EventFormat{};
}

TEST(EventFormat, ReadsIdAndEveryFieldFromTheKernelsText) {
  const EventFormat f = format_of("tcp_probe.format", "tcp/tcp_probe");
  EXPECT_EQ(f.id, 2273);
  const FieldFormat* una = f.field("snd_una");
  ASSERT_NE(una, nullptr);
  EXPECT_EQ(una->offset, 84U);
  EXPECT_EQ(una->size, 4U);
  const FieldFormat* saddr = f.field("saddr");  // "__u8 saddr[28]"
  ASSERT_NE(saddr, nullptr);
  EXPECT_EQ(saddr->size, 28U);
  ASSERT_NE(f.field("skaddr"), nullptr);  // "const void * skaddr"
  EXPECT_EQ(f.field("skaddr")->offset, 128U);
  EXPECT_TRUE(f.field("common_pid")->is_signed);
}

TEST(EventFormat, GarbageIsAnErrorNamingTheEvent) {
  const auto f = parse_event_format("name: x\nID: 7\n\tfield:int a;\toffset:zz;\n", "tcp/x");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("tcp/x"), std::string::npos);
  EXPECT_FALSE(parse_event_format("nothing here", "tcp/y"));
}

TEST(PageLayout, FromHeaderPage) {
  const auto l = page_layout(format_of("header_page.format", "header_page"));
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->commit_offset, 8U);
  EXPECT_EQ(l->commit_size, 8U);
  EXPECT_EQ(l->data_offset, 16U);
}

// A page as the ring buffer writes it: header (timestamp, commit), then records.
struct PageBuilder {
  std::vector<std::byte> bytes = std::vector<std::byte>(16);
  void word(std::uint32_t w) {
    const std::size_t at = bytes.size();
    bytes.resize(at + 4);
    std::memcpy(bytes.data() + at, &w, 4);
  }
  void record(std::uint32_t delta, const std::vector<std::uint32_t>& data, bool long_form = false) {
    if (long_form) {
      word(delta << 5);
      word(static_cast<std::uint32_t>(data.size() * 4 + 4));
    } else {
      word((delta << 5) | static_cast<std::uint32_t>(data.size()));
    }
    for (const std::uint32_t d : data) word(d);
  }
  std::vector<std::byte> page(std::uint64_t ts, std::uint64_t flags = 0) {
    std::vector<std::byte> p = bytes;
    const std::uint64_t commit = (p.size() - 16) | flags;
    std::memcpy(p.data(), &ts, 8);
    std::memcpy(p.data() + 8, &commit, 8);
    p.resize(4096);
    return p;
  }
};

TEST(DecodePage, RecordsTimeExtendsAndPadding) {
  PageBuilder b;
  b.record(10, {1, 2});
  b.word(30U | (5U << 5));  // time extend: (1 << 27) + 5
  b.word(1);
  b.record(0, {3}, true);  // long form (type_len 0)
  b.word(29U | (1U << 5));  // padding of 8 bytes
  b.word(8);
  b.word(0);
  b.record(7, {4});
  std::vector<std::pair<std::uint64_t, std::uint32_t>> seen;
  const auto stats = decode_page(b.page(1000, std::uint64_t{1} << 31), PageLayout{},
                                 [&](std::uint64_t ts, std::span<const std::byte> rec) {
                                   std::uint32_t first = 0;
                                   std::memcpy(&first, rec.data(), 4);
                                   seen.emplace_back(ts, first);
                                 });
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_TRUE(stats->missed_events);
  ASSERT_EQ(seen.size(), 3U);
  EXPECT_EQ(seen[0], (std::pair<std::uint64_t, std::uint32_t>{1010, 1}));
  EXPECT_EQ(seen[1], (std::pair<std::uint64_t, std::uint32_t>{1010 + (1U << 27) + 5, 3}));
  EXPECT_EQ(seen[2], (std::pair<std::uint64_t, std::uint32_t>{1010 + (1U << 27) + 5 + 7, 4}));
}

TEST(DecodePage, ACommitBeyondThePageIsAnError) {
  std::vector<std::byte> p(64);
  const std::uint64_t commit = 4000;
  std::memcpy(p.data() + 8, &commit, 8);
  EXPECT_FALSE(decode_page(p, PageLayout{}, [](std::uint64_t, std::span<const std::byte>) {}));
}

TEST(EventSchema, AbsentEventsAreNamedAndTheOthersDecoded) {
  const EventSchema s = EventSchema::make({format_of("tcp_probe.format", "tcp/tcp_probe")});
  ASSERT_EQ(s.missing().size(), 4U);
  EXPECT_NE(s.missing()[0].find("sock/sock_send_length"), std::string::npos);
  std::vector<std::byte> rec(136);
  const std::uint16_t type = 2273, sport = 5001;
  const std::uint32_t nxt = 9000, una = 1000;
  const std::uint64_t sk = 0xabcdef;
  std::memcpy(rec.data(), &type, 2);
  std::memcpy(rec.data() + 64, &sport, 2);
  std::memcpy(rec.data() + 80, &nxt, 4);
  std::memcpy(rec.data() + 84, &una, 4);
  std::memcpy(rec.data() + 128, &sk, 8);
  const auto e = s.decode(5, rec);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, TraceKind::probe);
  EXPECT_EQ(e->sport, 5001);
  EXPECT_EQ(e->snd_nxt - e->snd_una, 8000U);
  EXPECT_EQ(e->sk, sk);
  rec[0] = std::byte{1};  // another event's id
  EXPECT_FALSE(s.decode(5, rec));
}

TEST(EventSchema, AFieldMissingFromTheKernelsFormatIsNamed) {
  EventFormat f = format_of("sock_send_length.format", "sock/sock_send_length");
  std::erase_if(f.fields, [](const FieldFormat& x) { return x.name == "ret"; });
  const EventSchema s = EventSchema::make({f});
  ASSERT_EQ(s.missing().size(), 5U);  // four events absent, and the field
  EXPECT_NE(s.missing()[1].find("sock/sock_send_length has no field 'ret'"), std::string::npos) << s.missing()[1];
}

TraceEvent probe(std::uint64_t ms, std::uint32_t out) {
  TraceEvent e;
  e.kind = TraceKind::probe;
  e.ts_ns = ms * 1'000'000;
  e.sk = 1;
  e.local = "10.0.0.1:40000";
  e.remote = "10.0.0.2:5001";
  e.snd_una = 100;
  e.snd_nxt = 100 + out;
  return e;
}
TraceEvent send(std::uint64_t ms, std::int64_t len) {
  TraceEvent e;
  e.kind = TraceKind::send;
  e.ts_ns = ms * 1'000'000;
  e.sk = 1;
  e.length = len;
  return e;
}

TEST(StallDetector, AnAckHeldAfterASendIsADelayedAckStallWithItsSize) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe(0, 0));
  d.feed(send(1, 8192));
  d.feed(probe(2, 8192));    // 1 ms: the path
  d.feed(send(3, 8192));
  d.feed(probe(44, 1400));   // 41 ms: held
  d.feed(send(45, 8192));
  d.feed(send(46, 777));     // another socket's send
  const auto stalls = d.take();
  ASSERT_EQ(stalls.size(), 1U);
  EXPECT_EQ(stalls[0].wait_ns, 41'000'000);
  EXPECT_EQ(stalls[0].send_length, 8192);
  EXPECT_EQ(stalls[0].outstanding, 1400U);
  EXPECT_EQ(stalls[0].cause, core::LimitCause::delayed_ack);
  EXPECT_EQ(stalls[0].local, "10.0.0.1:40000");
  EXPECT_TRUE(d.take().empty());
}

TEST(StallDetector, AnAckAfterWhichTheSenderWritesLateIsNoStall) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe(0, 0));
  d.feed(send(1, 8192));
  d.feed(probe(2, 8192));
  d.feed(send(3, 8192));
  d.feed(probe(44, 1400));   // held 41 ms ...
  d.feed(send(80, 8192));    // ... but the next write comes 36 ms after the ACK: the application's
  EXPECT_TRUE(d.take().empty());
  d.feed(probe(121, 1400));  // held again; the ACK lets queued data go (snd_nxt moves), no write,
  TraceEvent next = probe(170, 1400);  // which the next probe shows, however late

  next.snd_nxt += 1448;
  d.feed(next);
  EXPECT_EQ(d.take().size(), 1U);
}

TEST(StallDetector, AWaitOfOneRoundTripIsThePathNotAStall) {
  StallDetector d(std::chrono::milliseconds(20));
  TraceEvent first = probe(0, 0);
  first.srtt_us = 30'000;  // a 30 ms path
  d.feed(first);
  d.feed(send(1, 65536));
  d.feed(probe(32, 16000));  // 31 ms: one round trip
  d.feed(send(33, 65536));
  d.feed(probe(85, 16000));  // 52 ms: 22 ms beyond it
  EXPECT_TRUE(d.take().empty());  // not yet known to have released the sender
  d.feed(send(86, 65536));        // the next write at once: it did
  const auto stalls = d.take();
  ASSERT_EQ(stalls.size(), 1U);
  EXPECT_EQ(stalls[0].path_ns, 31'000'000);  // the shortest wait, above the srtt
}

TEST(StallDetector, ARetransmissionMakesItLossAndAnIdleSocketNoStall) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe(0, 0));
  d.feed(send(1, 8192));
  d.feed(probe(2, 8192));
  TraceEvent r;
  r.kind = TraceKind::retransmit;
  r.sk = 1;
  r.ts_ns = 200'000'000;
  d.feed(r);
  d.feed(probe(250, 8192));
  d.feed(probe(900, 0));  // nothing out: an idle wait is no stall
  const auto stalls = d.take();
  ASSERT_EQ(stalls.size(), 1U);
  EXPECT_EQ(stalls[0].cause, core::LimitCause::loss);
}

TraceEvent probe_at(std::uint64_t us, std::uint32_t una, std::uint32_t nxt) {
  TraceEvent e = probe(0, 0);
  e.ts_ns = us * 1000;
  e.snd_una = una;
  e.snd_nxt = nxt;
  return e;
}
TraceEvent retransmit_at(std::uint64_t us) {
  TraceEvent r;
  r.kind = TraceKind::retransmit;
  r.sk = 1;
  r.ts_ns = us * 1000;
  return r;
}

TEST(StallDetector, AFastRecoveryLastsUntilItsRecoveryPointIsAcked) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe_at(0, 1000, 50'000));
  d.feed(probe_at(10'000, 1000, 60'000));  // the third duplicate ACK: recovery point 60,000
  d.feed(retransmit_at(10'020));           // in its softirq
  d.feed(probe_at(40'000, 1000, 70'000));  // new data sent meanwhile does not move the point
  d.feed(probe_at(41'000, 59'999, 71'000));
  auto r = d.take_recoveries();  // going on: its time so far
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].duration_ns, 41'000'000 - 10'020'000);
  EXPECT_EQ(r[0].local, "10.0.0.1:40000");
  d.feed(retransmit_at(41'500));            // inside the recovery: no new one
  d.feed(probe_at(42'000, 59'999, 72'000));  // the ACK that covers it ...
  d.feed(probe_at(50'000, 60'000, 72'000));  // ... shows at the next one
  r = d.take_recoveries();
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].duration_ns, 1'000'000);  // the rest, to 42 ms
  EXPECT_TRUE(d.take_recoveries().empty());
}

TEST(StallDetector, WithTheKernelsCongestionStatesARecoveryIsTheirs) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe_at(0, 1000, 50'000));
  const auto state = [](std::uint64_t us, int ca) {
    TraceEvent e;
    e.kind = TraceKind::cong_state;
    e.sk = 1;
    e.ts_ns = us * 1000;
    e.new_state = ca;
    return e;
  };
  d.feed(state(10'000, 1));  // Disorder: not yet a recovery
  d.feed(state(12'000, 3));  // Recovery, its retransmission a little later (pacing)
  d.feed(retransmit_at(15'000));
  d.feed(probe_at(30'000, 60'000, 70'000));  // past the probes' recovery point: the kernel decides
  d.feed(state(35'000, 4));                  // a timeout in it: Loss, still the same recovery
  d.feed(state(52'000, 0));                  // Open
  std::int64_t total = 0;
  for (const auto& x : d.take_recoveries()) total += x.duration_ns;
  EXPECT_EQ(total, 37'000'000);
  d.feed(state(60'000, 3));  // in Recovery and out without a retransmission: no loss time
  d.feed(state(70'000, 0));
  EXPECT_TRUE(d.take_recoveries(80'000'000).empty());
}

TEST(StallDetector, ARecoveryEndsWhenThePeerAcksTheFin) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe_at(0, 1000, 50'000));
  d.feed(retransmit_at(100));
  TraceEvent st;
  st.kind = TraceKind::set_state;
  st.sk = 1;
  st.ts_ns = 30'000'000;
  st.new_state = 5;  // FIN_WAIT2
  d.feed(st);
  const auto r = d.take_recoveries();
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].duration_ns, 30'000'000 - 100'000);
}

TEST(StallDetector, ATimeoutsRecoveryPointIsTheNextProbesSndNxt) {
  StallDetector d(std::chrono::milliseconds(20));
  d.feed(probe_at(0, 1000, 50'000));
  d.feed(retransmit_at(200'000));           // a timeout, long after the last ACK
  d.feed(probe_at(230'000, 1000, 80'000));  // snd_nxt 80,000 then
  d.feed(probe_at(231'000, 50'000, 80'000));  // 50,000 is not yet 80,000
  std::int64_t total = 0;
  for (const auto& x : d.take_recoveries()) total += x.duration_ns;
  EXPECT_EQ(total, 31'000'000);
  d.feed(probe_at(260'000, 70'000, 90'000));  // covers 80,000 ...
  d.feed(probe_at(270'000, 80'000, 90'000));  // ... as this one shows
  for (const auto& x : d.take_recoveries()) total += x.duration_ns;
  EXPECT_EQ(total, 60'000'000);
}

}  // namespace
}  // namespace ackstall::live
