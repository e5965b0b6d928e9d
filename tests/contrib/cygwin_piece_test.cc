// contrib/cygwin/cygwin_piece.h (the piece size of the Cygwin patch) against core::ChunkPolicy:
// where a whole MSS fits below SO_SNDBUF it cuts as PolicyKind::robust (the seed's get_chunk for
// M < S < 5M or jumbo MSS, quarter-quota pieces above), elsewhere as today's Cygwin
// (PolicyKind::cygwin), over whole grids of remaining bytes x SO_SNDBUF x MSS.
// The C99 build of the same header (cygwin_piece_c.c) must answer the same.
#include "cygwin_piece.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "ackstall/core/chunk_policy.h"

extern "C" unsigned long long cygwin_piece_as_c(unsigned long long left, unsigned int wmem, unsigned int mss);

namespace ackstall::core {
namespace {

using u64 = unsigned long long;

// What the library says the patched Cygwin cuts: robust's pieces where a whole MSS fits below
// SO_SNDBUF (the MSS known; robust's TCP_NODELAY and SO_SNDBUF raise are not part of it), Cygwin's pieces of SO_SNDBUF where no whole MSS fits below it or
// the MSS is unknown, no cut where SO_SNDBUF is 0 (no AFD buffering) up to CYGWIN_PIECE_MAX.
u64 expected_piece(u64 left, unsigned wmem, unsigned mss) {
  if (wmem == 0) return left < CYGWIN_PIECE_MAX ? left : CYGWIN_PIECE_MAX;
  const PolicyKind kind = mss > 0 && wmem > mss ? PolicyKind::robust : PolicyKind::cygwin;
  const ChunkPolicy policy(kind, {.sndbuf = wmem, .mss = mss > 0 ? mss : 1460, .stream = true});
  return policy.next_chunk(static_cast<std::size_t>(left));
}

void check(u64 left, unsigned wmem, unsigned mss) {
  const u64 got = cygwin_piece(left, wmem, mss);
  ASSERT_EQ(got, expected_piece(left, wmem, mss)) << "left " << left << " wmem " << wmem << " mss " << mss;
  ASSERT_EQ(cygwin_piece_as_c(left, wmem, mss), got) << "C build, left " << left << " wmem " << wmem;
  // The patch asks Winsock for the MSS only for messages above wmem / 4: none below is split.
  if (left <= wmem / 4) {
    ASSERT_EQ(got, left) << "split at or below wmem / 4: left " << left;
  }
  if (left == 0) return;
  ASSERT_GE(got, 1u);
  ASSERT_LE(got, left);
  ASSERT_LE(got, CYGWIN_PIECE_MAX);  // fits the int length of send() and a DWORD
}

TEST(CygwinPiece, WorkedExamples) {
  // SO_SNDBUF 65536, 131072-byte writes, MSS 1460 (S >= 5M): today 65536 + 65536; patched
  // quarter-quota pieces of 11 MSS = 16060, the 2592-byte rest with the last.
  EXPECT_EQ(cygwin_piece(131072, 65536, 1460), 16060u);
  EXPECT_EQ(cygwin_piece(131072 - 7 * 16060, 65536, 1460), 16060u);
  EXPECT_EQ(cygwin_piece(2592, 65536, 1460), 2592u);
  EXPECT_EQ(cygwin_piece(17519, 65536, 1460), 17519u);  // < one piece + one MSS: whole
  // M < S < 5M, the seed's get_chunk: 8192 into SO_SNDBUF 6000 -> 5840 + 2352; below S whole.
  EXPECT_EQ(cygwin_piece(8192, 6000, 1460), 5840u);
  EXPECT_EQ(cygwin_piece(2352, 6000, 1460), 2352u);
  EXPECT_EQ(cygwin_piece(5999, 6000, 1460), 5999u);
  EXPECT_EQ(cygwin_piece(6000 + 1000, 6000, 1460), 4380u);  // the rest >= one MSS: 4380 + 2620
  // Windows XP's 8192 with MSS 1460 (S >= 5M): one-MSS pieces; the last takes the rest < 2 MSS.
  EXPECT_EQ(cygwin_piece(8192, 8192, 1460), 1460u);
  EXPECT_EQ(cygwin_piece(2919, 8192, 1460), 2919u);
  // Cygwin's default wmem: 36 MSS = 52560 (a send below wmem is cut too, S >= 5M).
  EXPECT_EQ(cygwin_piece(1 << 20, 212992, 1460), 52560u);
  EXPECT_EQ(cygwin_piece(65536, 212992, 1460), 52560u);
  EXPECT_EQ(cygwin_piece(54019, 212992, 1460), 54019u);
  // Jumbo MSS: the seed's pieces (7 MSS below 65536), not quarter-quota ones.
  EXPECT_EQ(cygwin_piece(1 << 20, 65536, 8960), 62720u);
  // No whole MSS below SO_SNDBUF, or MSS unknown: today's pieces of wmem.
  EXPECT_EQ(cygwin_piece(100000, 1460, 1460), 1460u);
  EXPECT_EQ(cygwin_piece(100000, 1024, 1460), 1024u);
  EXPECT_EQ(cygwin_piece(1000, 1024, 1460), 1000u);
  EXPECT_EQ(cygwin_piece(100000, 8192, 0), 8192u);
  // SO_SNDBUF 0: no cut, at most CYGWIN_PIECE_MAX (a message of several 4 GiB buffers).
  EXPECT_EQ(cygwin_piece(100000, 0, 1460), 100000u);
  EXPECT_EQ(cygwin_piece(5ULL << 30, 0, 1460), CYGWIN_PIECE_MAX);
  EXPECT_EQ(cygwin_piece(0, 8192, 1460), 0u);
}

// Every remaining length, SO_SNDBUF and MSS of a small grid: each boundary (left vs wmem, left -
// base vs mss, wmem vs mss, wmem vs 2 mss) is crossed many times.
TEST(CygwinPiece, ExhaustiveSmallGridMatchesChunkPolicy) {
  for (unsigned mss = 0; mss <= 24; ++mss)
    for (unsigned wmem = 0; wmem <= 160; ++wmem)
      for (u64 left = 0; left <= 400; ++left) ASSERT_NO_FATAL_FAILURE(check(left, wmem, mss));
}

// Real sizes: the MSS of common paths x SO_SNDBUF from 1 byte to 1 MiB (powers of two, 1.5 x
// them, Cygwin's default, whole MSS and one byte either side) x the remaining lengths where the
// rules change, and whole plans of the write sizes of the map.
TEST(CygwinPiece, RealSizesMatchChunkPolicy) {
  const unsigned msses[] = {536, 1220, 1440, 1448, 1460, 8948, 8960, 65483};
  for (const unsigned mss : msses) {
    std::set<unsigned> wmems = {1, 2, 212992, 2 * mss - 1, 2 * mss, 2 * mss + 1};
    for (unsigned p = 1; p <= (1u << 20); p *= 2) wmems.insert({p, p + p / 2});
    for (unsigned k = 1; k <= 6; ++k) wmems.insert({k * mss - 1, k * mss, k * mss + 1});
    for (const unsigned wmem : wmems) {
      const u64 base = u64{mss} * ((wmem - 1) / mss);
      std::set<u64> lefts = {0, 1, 2, mss - 1, mss, mss + 1, wmem - 1, wmem, wmem + 1, 2ull * wmem,
                             base + mss - 1, base + mss, base + mss + 1, 2 * base + mss,
                             (1ull << 32) + 5, 5ull << 30};
      for (const u64 left : lefts) ASSERT_NO_FATAL_FAILURE(check(left, wmem, mss));
      if (wmem < 512) continue;  // whole plans: a bounded number of pieces
      for (u64 len = 1024; len <= (1u << 20); len *= 2) {
        const ChunkPolicy policy(mss < wmem ? PolicyKind::robust : PolicyKind::cygwin,
                                 {.sndbuf = wmem, .mss = mss, .stream = true});
        std::vector<std::size_t> plan;
        for (u64 left = len; left > 0;) {
          const u64 n = cygwin_piece(left, wmem, mss);
          ASSERT_GE(n, 1u) << "left " << left << " wmem " << wmem;  // else the loop would not end
          plan.push_back(static_cast<std::size_t>(n));
          left -= n;
        }
        ASSERT_EQ(plan, policy.plan(static_cast<std::size_t>(len))) << "len " << len << " wmem " << wmem;
      }
    }
  }
}

// What the patch is for: where a whole MSS fits below SO_SNDBUF, no piece reaches SO_SNDBUF
// (KB823764's trigger) and, for SO_SNDBUF >= 2 MSS, no piece of a send >= SO_SNDBUF is shorter
// than one MSS and every piece but the last is whole MSS (the seed's goals, docs/STACKS.md §0).
TEST(CygwinPiece, PiecesStayBelowSoSndbufInWholeMss) {
  for (const unsigned mss : {536u, 1448u, 1460u, 4096u, 4097u, 8960u})
    for (unsigned wmem = mss + 1; wmem <= 40 * mss; wmem += mss / 7 + 1)
      for (u64 len = wmem; len <= 3ull * wmem + mss; len += mss / 3 + 1) {
        u64 left = len;
        while (left > 0) {
          const u64 n = cygwin_piece(left, wmem, mss);
          ASSERT_GE(n, 1u) << "left " << left << " wmem " << wmem;  // else the loop would not end
          ASSERT_LT(n, wmem) << "len " << len << " wmem " << wmem << " mss " << mss;
          if (wmem >= 2 * mss) {
            ASSERT_GE(n, u64{mss}) << "len " << len << " wmem " << wmem;
          }
          if (n < left) {
            ASSERT_EQ(n % mss, 0u) << "len " << len << " wmem " << wmem;
          }
          left -= n;
        }
      }
}

// send_internal's stream loop (winsup/cygwin/fhandler/socket_inet.cc), ported line by line: the
// byte counts of the WSASendTo calls it makes for one message of buffers LENS, every call
// accepting all of its bytes. PATCHED: with the patch's cygwin_piece and `left`; else today's
// pieces of wmem (). Cygwin reads lpBuffers[in_idx] once in_idx reached the count (after the
// last piece); the port stops the loop there instead.
std::vector<u64> cygwin_send_calls(const std::vector<unsigned>& lens, unsigned wmem, unsigned mss, bool patched) {
  std::vector<u64> calls;
  const auto count = static_cast<unsigned>(lens.size());
  u64 left = 0;
  for (const unsigned len : lens) left += len;
  for (unsigned in_idx = 0, in_off = 0; in_idx < count;) {
    std::vector<unsigned> out_buf;
    u64 out_len = 0;
    const u64 piece = patched ? cygwin_piece(left, wmem, mss) : wmem;
    do {
      out_buf.push_back(lens[in_idx] - in_off);
      out_len += out_buf.back();
    } while ((patched ? (out_len < piece || piece == left) : out_len < wmem) &&
             (in_off = 0, ++in_idx < count));
    if (out_len > piece) {
      out_buf.back() -= static_cast<unsigned>(out_len - piece);
      out_len = piece;
    }
    left -= out_len;
    in_off += out_buf.back();
    calls.push_back(out_len);
    if (in_idx >= count) break;
    if (in_off >= lens[in_idx]) ++in_idx, in_off = 0;
  }
  return calls;
}

// Today's loop cuts the message (all buffers together) into pieces of exactly wmem (): what
// PolicyKind::cygwin plans for one send of the message's length. The patched loop cuts it as
// cygwin_piece plans, and makes no more WSASendTo calls than today's where the message is shorter
// than wmem () (one, empty buffers and all).
TEST(CygwinPiece, SendInternalLoopCutsAsThePolicies) {
  const std::vector<std::vector<unsigned>> messages = {
      {131072}, {8192}, {100}, {0}, {0, 0, 0}, {100, 0}, {0, 100}, {5000, 0, 3192}, {4096, 4096, 4096},
      {60000, 60000, 20000, 0}, {1, 65535, 1, 65535}, {65536, 65536}, {70000, 1, 1, 1, 0, 0}};
  for (const unsigned wmem : {8192u, 65536u, 212992u})
    for (const unsigned mss : {0u, 1460u, 8960u})
      for (const auto& lens : messages) {
        u64 total = 0;
        for (const unsigned len : lens) total += len;
        const ChunkPolicy today(PolicyKind::cygwin, {.sndbuf = wmem, .mss = 1460, .stream = true});
        std::vector<u64> plan_today, plan_patched;
        for (const std::size_t n : today.plan(static_cast<std::size_t>(total))) plan_today.push_back(n);
        for (u64 left = total; left > 0; left -= plan_patched.back()) {
          plan_patched.push_back(cygwin_piece(left, wmem, mss));
          ASSERT_GE(plan_patched.back(), 1u) << "left " << left;  // else the loop would not end
        }
        if (total == 0) plan_today = plan_patched = {0};  // one WSASendTo of nothing, as before
        EXPECT_EQ(cygwin_send_calls(lens, wmem, mss, false), plan_today) << "wmem " << wmem << " total " << total;
        EXPECT_EQ(cygwin_send_calls(lens, wmem, mss, true), plan_patched)
            << "wmem " << wmem << " mss " << mss << " total " << total << " buffers " << lens.size();
      }
}

}  // namespace
}  // namespace ackstall::core
