// StallSpill: stalls past the in-memory list go to a temporary file and come back in order.
#include "ackstall/pcap/stall_spill.h"

#include <gtest/gtest.h>

#include <vector>

#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {
namespace {

TEST(StallSpill, ComesBackInOrderAndTakesMoreAfterARead) {
  auto spill = StallSpill::create();
  ASSERT_TRUE(spill);
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(spill->append({.start_ns = i, .end_ns = i + 5, .seq = static_cast<std::uint64_t>(i)}));
  }
  std::vector<std::int64_t> seen;
  ASSERT_TRUE(spill->for_each([&](const Stall& s) { seen.push_back(s.start_ns); }));
  ASSERT_EQ(seen.size(), 10000u);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i);
  ASSERT_TRUE(spill->append({.start_ns = 10000}));  // appends continue after a read
  seen.clear();
  ASSERT_TRUE(spill->for_each([&](const Stall& s) { seen.push_back(s.start_ns); }));
  EXPECT_EQ(spill->size(), 10001u);
  EXPECT_EQ(seen.back(), 10000);
}

// The scanner keeps the first keep_stalls in memory and spills the rest: together, every stall.
TEST(StallSpill, ScannerListsEveryStallAcrossMemoryAndDisk) {
  StallScanner scanner({.threshold = std::chrono::milliseconds(1), .keep_stalls = 3, .spill_stalls = true, .on_stall = {}});
  TcpPacket syn;
  syn.src = {0x0a000001, 1000, {}};
  syn.dst = {0x0a000002, 5001, {}};
  syn.flags = tcp_flag::syn;
  syn.seq = 100;
  scanner.add(syn);
  TcpPacket syn_ack;
  syn_ack.src = syn.dst;
  syn_ack.dst = syn.src;
  syn_ack.flags = tcp_flag::syn | tcp_flag::ack;
  syn_ack.ack = 101;
  syn_ack.time_ns = 10'000;
  scanner.add(syn_ack);
  std::int64_t t = 1'000'000;
  std::uint32_t seq = 101;
  for (int i = 0; i < 10; ++i) {  // one segment, then its ACK 5 ms later: a stall each
    TcpPacket d = syn;
    d.flags = tcp_flag::ack | tcp_flag::psh;
    d.seq = seq;
    d.ack = 1;
    d.payload_len = 100;
    d.time_ns = t;
    scanner.add(d);
    seq += 100;
    TcpPacket a = syn_ack;
    a.flags = tcp_flag::ack;
    a.seq = 1;
    a.ack = seq;
    a.time_ns = t + 5'000'000;
    scanner.add(a);
    t += 6'000'000;
  }
  const auto report = scanner.report();
  ASSERT_EQ(report.size(), 1u);
  const DirectionReport& d = report[0].directions.at(0);
  EXPECT_EQ(d.stall_count, 10u);
  EXPECT_EQ(d.stalls.size(), 3u);
  ASSERT_TRUE(d.spilled);
  EXPECT_EQ(d.spilled->size(), 7u);
  std::vector<std::int64_t> starts;
  for (const auto& s : d.stalls) starts.push_back(s.start_ns);
  d.spilled->for_each([&](const Stall& s) { starts.push_back(s.start_ns); });
  ASSERT_EQ(starts.size(), 10u);
  for (std::size_t i = 1; i < starts.size(); ++i) EXPECT_EQ(starts[i] - starts[i - 1], 6'000'000);
}

}  // namespace
}  // namespace ackstall::pcap
