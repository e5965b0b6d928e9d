#include "ackstall/sim/send_buffer.h"

#include <gtest/gtest.h>

namespace ackstall::sim {
namespace {

SendBufferAccounting afd(std::int64_t quota, bool literal = false) {
  return SendBufferAccounting({SendBufferKind::afd, quota, literal});
}

// Seed pseudo-code: nonblocking send accepted whole iff buffered < SO_SNDBUF.
TEST(AfdNonblocking, OneSendFillsTheQuotaThenWouldBlock) {
  auto b = afd(8192);
  auto o = b.send(8192, true);
  EXPECT_EQ(o.accepted, 8192);
  EXPECT_FALSE(o.would_block);
  o = b.send(8192, true);
  EXPECT_TRUE(o.would_block);
  EXPECT_EQ(o.accepted, 0);
  EXPECT_TRUE(b.writer_waiting());
}

TEST(AfdNonblocking, QuotaReleasedOnlyWhenTheWholeSendIsAcked) {
  auto b = afd(8192);
  b.send(8192, true);
  EXPECT_TRUE(b.send(100, true).would_block);
  // Every byte but the last ACKed: no completion, no FD_WRITE (KB823764's stall).
  for (std::int64_t acked = 1460; acked < 8192; acked += 1460) {
    EXPECT_FALSE(b.on_acked(acked)) << acked;
    EXPECT_EQ(b.buffered(), 8192);
  }
  EXPECT_TRUE(b.on_acked(8192));  // FD_WRITE
  EXPECT_EQ(b.buffered(), 0);
  EXPECT_FALSE(b.writer_waiting());
}

TEST(AfdNonblocking, SmallerSendsAcceptedWhileBelowQuotaEvenIfTheyOvershoot) {
  auto b = afd(8192);
  EXPECT_EQ(b.send(5840, true).accepted, 5840);  // seed chunking: 5840 + 2352
  EXPECT_EQ(b.send(2352, true).accepted, 2352);  // 5840 < 8192: accepted, now at quota
  EXPECT_TRUE(b.send(5840, true).would_block);
  EXPECT_TRUE(b.on_acked(5840));  // the first send completes: FD_WRITE
  EXPECT_EQ(b.buffered(), 2352);
  EXPECT_EQ(b.send(5840, true).accepted, 5840);  // 2352 < 8192
  EXPECT_EQ(b.buffered(), 8192);
  EXPECT_EQ(b.outstanding_sends(), 2);
}

TEST(AfdNonblocking, FdWriteOnlyAfterWouldBlock) {
  auto b = afd(8192);
  b.send(1000, true);
  EXPECT_FALSE(b.on_acked(1000));  // completion but nobody waiting
}

TEST(AfdNonblocking, Kb214397LiteralAcceptsASecondSendOverQuota) {
  auto b = afd(8192, true);
  EXPECT_EQ(b.send(8192, true).accepted, 8192);
  EXPECT_EQ(b.send(8192, true).accepted, 8192);  // rule 2: only one previously buffered
  EXPECT_TRUE(b.send(8192, true).would_block);   // two buffered and over quota
  EXPECT_TRUE(b.on_acked(8192));
}

TEST(AfdBlocking, ThreeCompletionRules) {
  auto b = afd(8192);
  auto o = b.send(8192, false);  // rule 1: within quota before the send
  EXPECT_TRUE(o.completed);
  o = b.send(8192, false);       // rule 2: over quota, one previously buffered send
  EXPECT_TRUE(o.completed);
  o = b.send(8192, false);       // rule 3: over quota, two buffered before: withheld
  EXPECT_EQ(o.accepted, 8192);   // ... but copied
  EXPECT_FALSE(o.completed);
  EXPECT_TRUE(b.on_acked(8192)); // one previous send left: completion released
  EXPECT_FALSE(b.writer_waiting());
}

TEST(AfdPsh, LastSegmentOfEachSend) {
  auto b = afd(65536);
  b.send(3000, true);
  b.send(3000, true);
  EXPECT_FALSE(b.psh(0, 1460));
  EXPECT_FALSE(b.psh(1460, 2920));
  EXPECT_TRUE(b.psh(2920, 4380));   // contains byte 2999 (end of send 1)
  EXPECT_FALSE(b.psh(4380, 5840));
  EXPECT_TRUE(b.psh(5840, 6000));
}

TEST(BsdBuffer, PartialAcceptAndLowWaterMark) {
  SendBufferAccounting b({SendBufferKind::bsd, 16384, false});
  EXPECT_EQ(b.send(10000, true).accepted, 10000);
  EXPECT_EQ(b.send(10000, true).accepted, 6384);  // partial accept (sosend)
  EXPECT_TRUE(b.send(10000, true).would_block);
  EXPECT_FALSE(b.on_acked(1000));                 // 1000 free < lowat 2048
  EXPECT_TRUE(b.on_acked(3000));                  // 3000 free >= lowat
  EXPECT_TRUE(b.psh(10000, 16384));               // empties the buffer
  EXPECT_FALSE(b.psh(0, 1460));
}

TEST(Ns3Buffer, WriteAcceptedOnlyWhole) {
  SendBufferAccounting b({SendBufferKind::ns3, 8192, false});
  EXPECT_EQ(b.send(8192, true).accepted, 8192);
  EXPECT_TRUE(b.send(8192, true).would_block);
  EXPECT_FALSE(b.on_acked(4096));   // space 4096 < 8192: still no room for the write
  EXPECT_EQ(b.buffered(), 4096);    // but bytes are freed as ACKed
  EXPECT_TRUE(b.on_acked(8192));
  EXPECT_FALSE(b.psh(0, 8192));     // ns-3 never sets PSH
}

TEST(AllKinds, BufferedNeverNegativeOverSizes) {
  for (auto kind : {SendBufferKind::afd, SendBufferKind::bsd, SendBufferKind::ns3}) {
    for (std::int64_t len = 1; len <= 20000; len += 997) {
      SendBufferAccounting b({kind, 8192, false});
      std::int64_t acked = 0;
      for (int i = 0; i < 10; ++i) {
        b.send(len, true);
        acked = std::min(b.enqueued(), acked + 1460);
        b.on_acked(acked);
        ASSERT_GE(b.buffered(), 0);
        ASSERT_LE(b.buffered(), b.enqueued() - (kind == SendBufferKind::afd ? 0 : acked));
      }
    }
  }
}

}  // namespace
}  // namespace ackstall::sim
