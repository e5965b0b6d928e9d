#include "ackstall/core/chunk_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace ackstall::core {
namespace {

using Plan = std::vector<std::size_t>;

TEST(ChunkPolicy, ParsesNames) {
  EXPECT_EQ(parse_policy_kind("seed"), PolicyKind::seed);
  EXPECT_EQ(parse_policy_kind("cygwin"), PolicyKind::cygwin);
  EXPECT_EQ(parse_policy_kind("none"), PolicyKind::none);
  EXPECT_EQ(parse_policy_kind("Seed"), std::nullopt);
  EXPECT_EQ(parse_policy_kind(""), std::nullopt);
  EXPECT_EQ(parse_policy_kind("robust"), PolicyKind::robust);
  EXPECT_EQ(parse_policy_kind("auto"), PolicyKind::automatic);
  EXPECT_EQ(parse_policy_kind("cygwin-patch"), PolicyKind::cygwin_patch);
  EXPECT_EQ(parse_policy_kind("cygwin_patch"), std::nullopt);
  EXPECT_EQ(parse_policy_kind("automatic"), std::nullopt);
  for (auto k : kPolicyKinds) EXPECT_EQ(parse_policy_kind(to_string(k)), k);
  EXPECT_EQ(policy_names(), (std::vector<std::string>{"none", "seed", "cygwin", "cygwin-patch", "robust", "auto"}));
}

// Worked examples, each checked by hand against the seed's get_chunk/update_chunk.
TEST(ChunkPolicy, SeedWorkedExamples) {
  // Winsock default SO_SNDBUF 8192, Ethernet MSS 1460: base = 5*1460 = 7300; 8192-7300 = 892 <
  // 1460, so the first chunk shrinks to 5840 and the 2352-byte tail goes whole.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1460, true}).plan(8192), (Plan{5840, 2352}));
  // Timestamps on (MSS 1448): 5792 + 2400, the split measured in docs/STACKS.md §7.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1448, true}).plan(8192), (Plan{5792, 2400}));
  // ttcp -l 7300 (5 MSS) is below SO_SNDBUF: never split.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1460, true}).plan(7300), (Plan{7300}));
  // KB823764's trace: a 64 KB send with SO_SNDBUF 65536: base 44*1460 = 64240 leaves 1296 < MSS.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {65536, 1460, true}).plan(65536), (Plan{62780, 2756}));
  // A long send: full base chunks, then the shrink rule only near the end.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1460, true}).plan(20000),
            (Plan{7300, 7300, 5400}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1460, true}).plan(16384),
            (Plan{7300, 7300, 1784}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1460, true}).plan(15500),
            (Plan{7300, 5840, 2360}));
  // sndbuf <= mss: the policy does not chunk at all.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {1460, 1460, true}).base_chunk(), 0);
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {1460, 1460, true}).plan(5000), (Plan{5000}));
  // mss < sndbuf < 2*mss: one MSS per chunk, and the tail may be short.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {2000, 1460, true}).plan(2000), (Plan{1460, 540}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {2000, 1460, true}).plan(4000),
            (Plan{1460, 1460, 1080}));
  // sndbuf == 2*mss: one MSS per chunk, and the tail is at least one MSS.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {2920, 1460, true}).plan(3000), (Plan{1460, 1540}));
  // Not a stream socket: never split.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, {8192, 1460, false}).plan(100000), (Plan{100000}));
}

TEST(ChunkPolicy, UpdateRecomputesBase) {
  ChunkPolicy p(PolicyKind::seed, {8192, 1460, true});
  EXPECT_EQ(p.base_chunk(), 7300);
  p.update({32768, 1460, true});
  EXPECT_EQ(p.base_chunk(), 32120);
  p.update({32768, 1448, true});
  EXPECT_EQ(p.base_chunk(), 31856);
  p.update({0, 1448, true});  // unknown SO_SNDBUF: do not split
  EXPECT_EQ(p.base_chunk(), 0);
  EXPECT_EQ(p.next_chunk(100), 100u);
}

TEST(ChunkPolicy, CygwinAndNone) {
  EXPECT_EQ(ChunkPolicy(PolicyKind::cygwin, {8192, 1460, true}).plan(20000),
            (Plan{8192, 8192, 3616}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::cygwin, {8192, 1460, true}).plan(8192), (Plan{8192}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::cygwin, {8192, 1460, false}).plan(20000), (Plan{20000}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::none, {8192, 1460, true}).plan(20000), (Plan{20000}));
  EXPECT_TRUE(ChunkPolicy(PolicyKind::none, {8192, 1460, true}).plan(0).empty());
}

// Sizes around every boundary that matters for one (mss, sndbuf) pair.
std::vector<std::size_t> interesting_lengths(std::int64_t mss, std::int64_t sndbuf,
                                             std::mt19937_64& rng) {
  std::vector<std::size_t> out;
  auto add = [&](std::int64_t v) {
    if (v >= 0) out.push_back(static_cast<std::size_t>(v));
  };
  for (std::int64_t d = -2; d <= 2; ++d) {
    add(mss + d);
    add(2 * mss + d);
    add(sndbuf + d);
    add(2 * sndbuf + d);
    add(sndbuf + mss + d);
    add(3 * sndbuf - mss + d);
  }
  add(0);
  add(1);
  std::uniform_int_distribution<std::int64_t> any(1, 4 * sndbuf + 3 * mss);
  for (int i = 0; i < 4; ++i) add(any(rng));
  return out;
}

std::vector<std::int64_t> interesting_sndbufs(std::int64_t mss, std::mt19937_64& rng) {
  std::vector<std::int64_t> out = {1, mss / 2, mss - 1, mss, mss + 1, 2 * mss - 1, 2 * mss,
                                   2 * mss + 1, 3 * mss, 3 * mss + 1, 8192, 16384, 65536};
  std::uniform_int_distribution<std::int64_t> any(1, 20 * mss);
  for (int i = 0; i < 3; ++i) out.push_back(any(rng));
  return out;
}

// The exhaustive property check described in chunk_policy.h, over every mss in [536, 9000].
TEST(ChunkPolicy, SeedPropertiesEveryMss) {
  std::mt19937_64 rng(2006);
  std::uint64_t checked = 0;
  for (std::int64_t mss = 536; mss <= 9000; ++mss) {
    for (std::int64_t sndbuf : interesting_sndbufs(mss, rng)) {
      const ChunkPolicy p(PolicyKind::seed, {sndbuf, mss, true});
      const auto base = p.base_chunk();
      // update_chunk: the largest multiple of mss strictly below sndbuf (0 when sndbuf <= mss).
      ASSERT_EQ(base % mss, 0);
      ASSERT_LT(base, sndbuf);
      ASSERT_GE(base + mss, sndbuf);
      ASSERT_EQ(base == 0, sndbuf <= mss);
      const auto S = static_cast<std::size_t>(sndbuf);
      const auto M = static_cast<std::size_t>(mss);
      for (std::size_t len : interesting_lengths(mss, sndbuf, rng)) {
        std::size_t remaining = len, sum = 0, count = 0, last = 0;
        while (remaining > 0) {
          const std::size_t n = p.next_chunk(remaining);
          ASSERT_GE(n, 1u);
          ASSERT_LE(n, remaining);
          const bool is_last = n == remaining;
          if (base > 0) {
            ASSERT_LT(n, S) << "mss=" << mss << " sndbuf=" << sndbuf << " len=" << len;
            if (!is_last) {
              ASSERT_EQ(n % M, 0u) << "non-final chunk not whole MSS";
              // As large as possible: the base chunk, or one MSS less to protect the tail.
              const bool shrunk = remaining - static_cast<std::size_t>(base) < M &&
                                  static_cast<std::size_t>(base) > M;
              ASSERT_EQ(n, static_cast<std::size_t>(shrunk ? base - mss : base));
            }
            if (sndbuf >= 2 * mss && len >= M) { ASSERT_GE(n, M) << "chunk below one MSS"; }
            if (sndbuf <= 2 * mss && !is_last) { ASSERT_EQ(n, M); }
          } else {
            ASSERT_EQ(n, len) << "sndbuf <= mss must not split";
          }
          if (len < S) { ASSERT_EQ(n, len) << "a send below SO_SNDBUF must not be split"; }
          sum += n;
          remaining -= n;
          last = n;
          ++count;
        }
        ASSERT_EQ(sum, len);
        if (len > 0) { ASSERT_GT(last, 0u); }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 4'000'000u);
}

// The boundary the header documents: one byte below sndbuf == 2*mss the tail can be shorter
// than one MSS; from 2*mss on it cannot (the seed's own "so_sndbuf >= 2*MSS").
TEST(ChunkPolicy, TailRuleBoundaryIsTwoMss) {
  for (std::int64_t mss : {536, 1448, 1460, 8960}) {
    const auto M = static_cast<std::size_t>(mss);
    const ChunkPolicy below(PolicyKind::seed, {2 * mss - 1, mss, true});
    EXPECT_EQ(below.plan(2 * M - 1), (Plan{M, M - 1}));
    for (std::int64_t sndbuf : {2 * mss, 2 * mss + 1, 3 * mss}) {
      const ChunkPolicy at(PolicyKind::seed, {sndbuf, mss, true});
      for (std::size_t len = M; len < 6 * M; len += 7)
        for (std::size_t n : at.plan(len)) ASSERT_GE(n, M) << "mss=" << mss << " len=" << len;
    }
  }
}

TEST(ChunkPolicy, CygwinPropertiesEveryMss) {
  std::mt19937_64 rng(2017);
  for (std::int64_t mss = 536; mss <= 9000; mss += 1) {
    for (std::int64_t sndbuf : interesting_sndbufs(mss, rng)) {
      const ChunkPolicy p(PolicyKind::cygwin, {sndbuf, mss, true});
      const auto S = static_cast<std::size_t>(sndbuf);
      for (std::size_t len : interesting_lengths(mss, sndbuf, rng)) {
        // Tiny buffers (sndbuf 1: one chunk per byte) only on short sends, to bound the runtime.
        if (sndbuf < 64) len = std::min<std::size_t>(len, 200);
        std::size_t remaining = len;
        while (remaining > 0) {
          const std::size_t n = p.next_chunk(remaining);
          ASSERT_GE(n, 1u);
          ASSERT_LE(n, S);
          if (n != remaining) { ASSERT_EQ(n, S) << "only the last piece may be short"; }
          remaining -= n;
        }
      }
    }
  }
}


// ---- robust and auto (chunk_policy.h; docs/STACKS.md §8) ------------------------------------

TEST(ChunkPolicy, RobustWorkedExamples) {
  // Winsock default 8192, MSS 1460: base = 1460 * max(1, 8192 / 5840) = 1460; the 2352-byte
  // rest (< base + MSS) rides along with the last chunk. No TCP_NODELAY (S >= 2M).
  const ChunkPolicy w(PolicyKind::robust, {8192, 1460, true});
  EXPECT_EQ(w.base_chunk(), 1460);
  EXPECT_EQ(w.plan(8192), (Plan{1460, 1460, 1460, 1460, 2352}));
  EXPECT_FALSE(w.wants_nodelay());
  // The 15928-byte sends over the emulated 8192 quota, MSS 1448.
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {8192, 1448, true}).plan(15928), Plan(11, 1448));
  // Sends below base + MSS go whole; 2920 = 2 MSS is split (1460 + 1460).
  EXPECT_EQ(w.plan(2919), (Plan{2919}));
  EXPECT_EQ(w.plan(2920), (Plan{1460, 1460}));
  // 64 KiB quota: base 11 MSS = 16060.
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {65536, 1460, true}).plan(65536),
            (Plan{16060, 16060, 16060, 17356}));
  // mss < sndbuf < 2 mss: the seed's one-MSS chunks (two in flight: BSD and Windows receivers
  // ACK the pair at once, STACKS.md §8) and TCP_NODELAY for the span of each send >= SO_SNDBUF.
  const ChunkPolicy mid(PolicyKind::robust, {2000, 1460, true});
  EXPECT_EQ(mid.base_chunk(), 1460);
  EXPECT_EQ(mid.plan(4000), (Plan{1460, 1460, 1080}));
  EXPECT_EQ(mid.plan(4000), ChunkPolicy(PolicyKind::seed, {2000, 1460, true}).plan(4000));
  EXPECT_TRUE(mid.wants_nodelay());
  EXPECT_TRUE(mid.nodelay_for(4000));
  EXPECT_TRUE(mid.nodelay_for(2000));
  EXPECT_FALSE(mid.nodelay_for(1999));  // below the quota: Nagle untouched
  // A send below the quota that finds it full: under RFC 896's Nagle always TCP_NODELAY (no later
  // send can fill the segment it holds); under Minshall's only a send of at least S / 2.
  EXPECT_TRUE(mid.nodelay_when_blocked(1));
  EXPECT_TRUE(mid.nodelay_when_blocked(1999));
  core::SocketParams minshall{2000, 1460, true};
  minshall.minshall_nagle = true;
  const ChunkPolicy mid_linux(PolicyKind::robust, minshall);
  EXPECT_FALSE(mid_linux.nodelay_when_blocked(999));
  EXPECT_TRUE(mid_linux.nodelay_when_blocked(1000));
  EXPECT_TRUE(ChunkPolicy(PolicyKind::robust, {8192, 8960, true}).nodelay_when_blocked(1));
  // 2M <= S < 5M: only a send of at least S / 2, under either Nagle.
  const ChunkPolicy few(PolicyKind::robust, {4096, 1460, true});
  EXPECT_FALSE(few.nodelay_when_blocked(2047));
  EXPECT_TRUE(few.nodelay_when_blocked(2048));
  EXPECT_FALSE(w.nodelay_when_blocked(1));
  EXPECT_FALSE(w.nodelay_when_blocked(1 << 20));  // S >= 5M: pieces keep the quota moving
  // sndbuf <= mss (loopback, jumbo frames, small buffers): no split, TCP_NODELAY as above.
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {1024, 1460, true}).plan(3000), (Plan{3000}));
  const ChunkPolicy jumbo(PolicyKind::robust, {8192, 8960, true});
  EXPECT_EQ(jumbo.plan(20000), (Plan{20000}));
  EXPECT_TRUE(jumbo.nodelay_for(20000));
  // The loopback case -b 98304 with MSS 65483 (M < S < 2M): one MSS, then the rest.
  const ChunkPolicy lb(PolicyKind::robust, {98304, 65483, true});
  EXPECT_EQ(lb.plan(98304), (Plan{65483, 32821}));
  EXPECT_TRUE(lb.nodelay_for(98304));
  // 2M <= S < 5M: the seed's chunks (loopback MSS 32741, -b 98304).
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {98304, 32741, true}).plan(98304),
            ChunkPolicy(PolicyKind::seed, {98304, 32741, true}).plan(98304));
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {2048, 536, true}).plan(8192),
            ChunkPolicy(PolicyKind::seed, {2048, 536, true}).plan(8192));
  // Jumbo MSS (> 4 KiB) with 5M <= S < 8M: still the seed's chunks, not one-MSS ones (a continuous
  // stream of jumbo segments locks into one segment per round trip against a window below two
  // segments, STACKS.md §8): 64 KiB quota, MSS 8960 -> 6 x 8960, then 8960 + 2816 (tail rule).
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {65536, 8960, true}).plan(65536), (Plan{53760, 11776}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {65536, 8960, true}).plan(65536),
            ChunkPolicy(PolicyKind::seed, {65536, 8960, true}).plan(65536));
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {65536, 1460, true}).base_chunk(), 16060);  // 1460: quarter
  // ... and above 8M too (a quarter would be 3 MSS: the map's 18 cells against a 2-segment window).
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {131072, 8960, true}).plan(262144),
            ChunkPolicy(PolicyKind::seed, {131072, 8960, true}).plan(262144));
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {131072, 8960, true}).base_chunk(), 14 * 8960);
  // Not a stream socket / unknown SO_SNDBUF: whole.
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {8192, 1460, false}).plan(20000), (Plan{20000}));
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {0, 1460, true}).plan(20000), (Plan{20000}));
}

TEST(ChunkPolicy, RobustPropertiesEveryMss) {
  std::mt19937_64 rng(2026);
  std::uint64_t checked = 0;
  for (std::int64_t mss = 536; mss <= 9000; mss += 3) {
    for (std::int64_t sndbuf : interesting_sndbufs(mss, rng)) {
      const ChunkPolicy p(PolicyKind::robust, {sndbuf, mss, true});
      const auto S = static_cast<std::size_t>(sndbuf);
      const auto M = static_cast<std::size_t>(mss);
      ASSERT_EQ(p.wants_nodelay(), sndbuf < 2 * mss);
      for (std::size_t len : interesting_lengths(mss, sndbuf, rng)) {
        if (sndbuf < 64) len = std::min<std::size_t>(len, 200);
        std::size_t remaining = len, sum = 0;
        while (remaining > 0) {
          const std::size_t n = p.next_chunk(remaining);
          ASSERT_GE(n, 1u);
          ASSERT_LE(n, remaining);
          const bool is_last = n == remaining;
          // (1) Never a piece >= SO_SNDBUF unless the whole send is below it (KB823764).
          if (sndbuf <= mss) { ASSERT_EQ(n, len) << "S <= M: robust does not split"; }
          if (sndbuf > mss && sndbuf < 2 * mss) {  // the seed's one-MSS chunks
            ASSERT_EQ(n, ChunkPolicy(PolicyKind::seed, {sndbuf, mss, true}).next_chunk(remaining));
          }
          if (len >= S && sndbuf >= 2 * mss) { ASSERT_LT(n, S) << "mss=" << mss << " sndbuf=" << sndbuf << " len=" << len; }
          if (sndbuf >= 2 * mss) {
            // (2)+(3): whole MSS but the last; every piece >= MSS once the send is.
            if (!is_last) { ASSERT_EQ(n % M, 0u); }
            if (len >= M) { ASSERT_GE(n, M) << "mss=" << mss << " sndbuf=" << sndbuf << " len=" << len; }
            // The seed's chunks for 2M <= S < 5M, and at jumbo MSS (> 4 KiB) for every S.
            const std::int64_t seedlike_below = mss > 4096 ? INT64_MAX : 5 * mss;
            // Above that several chunks fit below the quota: at most a quarter of it.
            if (!is_last && sndbuf >= seedlike_below) { ASSERT_LE(n, std::max(M, S / 4)); }
            if (sndbuf < seedlike_below) { ASSERT_EQ(n, ChunkPolicy(PolicyKind::seed, {sndbuf, mss, true}).next_chunk(remaining)); }
          }
          sum += n;
          remaining -= n;
        }
        ASSERT_EQ(sum, len);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1'000'000u);
}

TEST(ChunkPolicy, AutoFollowsTheQuota) {
  const SocketParams winsock{8192, 1460, true, true};  // Winsock: charged per whole send
  const ChunkPolicy w(PolicyKind::automatic, winsock);
  EXPECT_EQ(w.effective(), PolicyKind::robust);
  EXPECT_EQ(w.plan(8192), ChunkPolicy(PolicyKind::robust, winsock).plan(8192));
  SocketParams linux_params = winsock;
  linux_params.per_send_quota = false;
  const ChunkPolicy l(PolicyKind::automatic, linux_params);
  EXPECT_EQ(l.effective(), PolicyKind::none);
  EXPECT_EQ(l.base_chunk(), 0);
  EXPECT_EQ(l.plan(1 << 20), (Plan{1u << 20}));
  EXPECT_FALSE(l.wants_nodelay());
  // Explicit policies ignore per_send_quota.
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, linux_params).plan(8192), (Plan{5840, 2352}));
}

// Under Minshall's Nagle a quota between one and two MSS stalls a stream of sends below it; the
// raise then also covers those sends (docs/STACKS.md §8). Under RFC 896's Nagle, or outside that
// quota, a send below the quota still gets no raise.
TEST(ChunkPolicy, RobustRaisesForSmallSendsUnderMinshallNagleWhenTheQuotaIsUnderTwoMss) {
  SocketParams p{2048, 1460, true};
  p.allow_raise_sndbuf = true;
  p.minshall_nagle = true;
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8), 16 * 1460);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(4096), 16 * 1460);  // >= S: as before
  p.minshall_nagle = false;
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8), 2048);
  p.minshall_nagle = true;
  p.sndbuf = 4096;  // 2M <= S: no stall for small sends to end
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8), 4096);
  p.sndbuf = 1024;  // S <= M: robust sends whole with TCP_NODELAY when blocked
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8), 1024);
  p.allow_raise_sndbuf = false;
  p.sndbuf = 2048;
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8), 2048);  // only where allowed
  // Jumbo MSS, M < S < 2M: whatever the peer's window (small sends queue behind it as whole
  // segments); a send >= S still needs the window to hold the raise.
  SocketParams j{12288, 8960, true, true, true};
  j.minshall_nagle = true;
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, j).recommended_sndbuf(96), 4 * 8960);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, j).recommended_sndbuf(12288), 12288);
}

TEST(ChunkPolicy, RobustRecommendsRaisedSndbufOnlyWhenAllowed) {
  SocketParams p{8192, 1460, true};
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8192), 8192);
  p.allow_raise_sndbuf = true;
  const ChunkPolicy r(PolicyKind::robust, p);
  EXPECT_EQ(r.recommended_sndbuf(8192), 16 * 1460);   // 16 MSS below the 64 KiB cap
  EXPECT_EQ(r.recommended_sndbuf(8191), 8192);        // below SO_SNDBUF: no KB823764 trigger
  // Jumbo MSS: the 64 KiB cap binds below 16 MSS; robust raises only S <= M, and to 4 MSS (seed-like
  // multi-MSS chunks), not to the cap (one-MSS chunks against a two-segment window, STACKS.md §8).
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {8192, 8960, true, true, true}).recommended_sndbuf(8192), 4 * 8960);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {8960, 8960, true, true, true}).recommended_sndbuf(8960), 4 * 8960);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {16384, 8960, true, true, true}).recommended_sndbuf(16384), 16384);
  // M < S < 2M at jumbo MSS: to 4 MSS only where the peer's window holds it.
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {16384, 8960, true, true, true, 65535}).recommended_sndbuf(16384), 4 * 8960);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {16384, 8960, true, true, true, 4 * 8960}).recommended_sndbuf(16384), 4 * 8960);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {16384, 8960, true, true, true, 4 * 8960 - 1}).recommended_sndbuf(16384), 16384);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {16384, 8960, true, true, false, 65535}).recommended_sndbuf(16384), 16384);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {17920, 8960, true, true, true, 65535}).recommended_sndbuf(17920), 17920);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {17920, 8960, true, true, true}).recommended_sndbuf(17920), 17920);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {4096, 4096, true, true, true}).recommended_sndbuf(4096), 65536);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {4096, 8192, true, true, true}).recommended_sndbuf(4096), 32768);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {4096, 16384, true, true, true}).recommended_sndbuf(4096), 65536);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {20000, 16384, true, true, true}).recommended_sndbuf(20000), 20000);
  // Loopback MSS: 2 MSS is above the cap, which then gives way: 4 MSS (seed-like chunks of 3 MSS),
  // also for M < S < 2M; at S >= 2M nothing.
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {32768, 65483, true, true, true}).recommended_sndbuf(65536), 4 * 65483);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {98304, 65483, true, true, true}).recommended_sndbuf(98304), 4 * 65483);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {131072, 65483, true, true, true}).recommended_sndbuf(131072), 131072);
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, {32768, 65483, true, true, true}).recommended_sndbuf(32767), 32768);
  EXPECT_EQ(ChunkPolicy(PolicyKind::seed, p).recommended_sndbuf(8192), 8192);
  p.sndbuf = 1 << 20;  // never lowers
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).recommended_sndbuf(8192), 1 << 20);
  // After the raise (16 MSS of quota) an 8192-byte send is 5840 + 2352, three such sends in flight.
  p.sndbuf = 16 * 1460;
  EXPECT_EQ(ChunkPolicy(PolicyKind::robust, p).plan(8192), (Plan{5840, 2352}));
}

TEST(ChunkPolicy, NoticeSaysWhyAPolicyDoesNotAct) {
  const auto has = [](const std::optional<std::string>& n, std::string_view what) {
    return n && n->find(what) != std::string::npos;
  };
  // The seed switches off when MSS >= SO_SNDBUF (loopback: MSS 65483).
  EXPECT_TRUE(has(policy_notice(PolicyKind::seed, {32768, 65483, true}, 65536), "MSS 65483 >= SO_SNDBUF 32768"));
  EXPECT_TRUE(has(policy_notice(PolicyKind::seed, {8192, 1460, true}, 4096), "send 4096 < SO_SNDBUF 8192"));
  EXPECT_TRUE(has(policy_notice(PolicyKind::seed, {2000, 1460, true}, 4000), "SO_SNDBUF 2000 < 2 MSS (2920)"));
  EXPECT_EQ(policy_notice(PolicyKind::seed, {8192, 1460, true}, 8192), std::nullopt);  // acts as designed
  EXPECT_TRUE(has(policy_notice(PolicyKind::cygwin, {8192, 1460, true}, 8192), "KB823764"));
  EXPECT_TRUE(has(policy_notice(PolicyKind::cygwin, {8192, 1460, true}, 100), "sent whole"));
  EXPECT_EQ(policy_notice(PolicyKind::none, {8192, 1460, true}, 8192), std::nullopt);
  EXPECT_TRUE(has(policy_notice(PolicyKind::seed, {8192, 1460, false}, 8192), "not a TCP stream"));
  EXPECT_TRUE(has(policy_notice(PolicyKind::seed, {0, 1460, true}, 8192), "SO_SNDBUF unknown"));
  // robust: acts as designed at 8192/1460; says TCP_NODELAY where it needs it.
  EXPECT_EQ(policy_notice(PolicyKind::robust, {8192, 1460, true}, 8192), std::nullopt);
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, {32768, 65483, true}, 65536), "TCP_NODELAY"));
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, {2000, 1460, true}, 4000), "< 2 MSS"));
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, {8192, 1460, true}, 100), "sent whole"));
  SocketParams raise{8192, 1460, true};
  raise.allow_raise_sndbuf = true;
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, raise, 8192), "SO_SNDBUF 8192 -> 23360 recommended"));
  // Jumbo MSS, M < S < 2M: the raise waits for a peer's window that holds it.
  SocketParams jumbo{16384, 8960, true, true, true};
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, jumbo, 65536), "the peer's window is unknown"));
  jumbo.peer_window = 17920;
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, jumbo, 65536), "the peer's window 17920 cannot hold"));
  jumbo.peer_window = 65535;
  EXPECT_TRUE(has(policy_notice(PolicyKind::robust, jumbo, 65536), "SO_SNDBUF 16384 -> 35840 recommended"));
  // auto on a kernel without a per-send quota.
  const SocketParams lin{8192, 1460, true};  // per_send_quota false: Linux, BSD, macOS
  EXPECT_TRUE(has(policy_notice(PolicyKind::automatic, lin, 8192), "no per-send quota"));
  EXPECT_EQ(policy_notice(PolicyKind::automatic, {8192, 1460, true, true}, 8192), std::nullopt);
  EXPECT_TRUE(has(policy_notice(PolicyKind::automatic, {2000, 1460, true, true}, 4000), "auto (robust)"));
}

// run_length (found by doubling and bisection) is the count of equal chunks in a row the walk
// makes, for every policy, at every point of the send the walk reaches.
TEST(ChunkPolicy, RunLengthIsTheWalksRun) {
  for (auto k : kPolicyKinds) {
    for (const SocketParams& p : {SocketParams{8192, 1460, true}, SocketParams{3, 1, true},
                                  SocketParams{2000, 1460, true, true}, SocketParams{65536, 8948, true}}) {
      for (std::size_t len : {std::size_t{1}, std::size_t{1000}, std::size_t{8192}, std::size_t{100'003}}) {
        const ChunkPolicy policy(k, p);
        const auto plan = policy.plan(len);
        std::uint64_t left = len;
        for (std::size_t i = 0; i < plan.size();) {
          std::size_t n = 1;
          while (i + n < plan.size() && plan[i + n] == plan[i]) ++n;
          EXPECT_EQ(policy.run_length(left, len, plan[i]), n) << to_string(k) << " len " << len << " at " << i;
          left -= n * plan[i];
          i += n;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ackstall::core
