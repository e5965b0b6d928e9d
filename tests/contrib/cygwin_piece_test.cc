// contrib/cygwin/cygwin_piece.h (the piece size of the Cygwin patch) against core::ChunkPolicy,
// over whole grids of remaining bytes x send length x SO_SNDBUF x MSS x SNDBUF_SET:
// - SNDBUF_SET false (SO_SNDBUF unset: dynamic send buffering sizes the quota): where a whole MSS
//   fits below SO_SNDBUF it cuts as PolicyKind::robust (the seed's get_chunk for M < S < 5M or
//   jumbo MSS, quarter-quota pieces above), elsewhere as today's Cygwin (PolicyKind::cygwin).
// - SNDBUF_SET true: the same, except that a send below SO_SNDBUF goes whole, which differs from
//   robust only in the quarter regime (elsewhere robust sends it whole too).
// core's PolicyKind::cygwin_patch answers exactly cygwin_piece (it calls it), and the C99 build
// of the same header (cygwin_piece_c.c) must answer the same.
#include "cygwin_piece.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "ackstall/core/chunk_policy.h"

extern "C" unsigned long long cygwin_piece_as_c(unsigned long long left, unsigned long long len, unsigned int wmem,
                                                unsigned int mss, int sndbuf_set);

namespace ackstall::core {
namespace {

using u64 = unsigned long long;

// One whole send of LEFT bytes (LEN = LEFT), SO_SNDBUF unset (SNDBUF_SET 0).
u64 piece(u64 left, unsigned wmem, unsigned mss) { return cygwin_piece(left, left, wmem, mss, 0); }

// The quarter regime of robust (and of cygwin_piece): S >= 5M, M not jumbo.
bool quarter_regime(unsigned wmem, unsigned mss) {
  return mss > 0 && mss <= CYGWIN_PIECE_JUMBO_MSS && u64{wmem} >= 5ull * mss;
}

// What the library says the patched Cygwin cuts: a send below a SO_SNDBUF the application set
// whole; else robust's pieces where a whole MSS fits below SO_SNDBUF (the MSS known; robust's
// TCP_NODELAY and SO_SNDBUF raise are not part of it), Cygwin's pieces of SO_SNDBUF where no whole
// MSS fits below it or the MSS is unknown, no cut where SO_SNDBUF is 0 (no AFD buffering) up to
// CYGWIN_PIECE_MAX.
u64 expected_piece(u64 left, u64 len, unsigned wmem, unsigned mss, bool sndbuf_set) {
  if (wmem == 0) return left < CYGWIN_PIECE_MAX ? left : CYGWIN_PIECE_MAX;
  if (sndbuf_set && len < wmem) return left;
  const PolicyKind kind = mss > 0 && wmem > mss ? PolicyKind::robust : PolicyKind::cygwin;
  const ChunkPolicy policy(kind, {.sndbuf = wmem, .mss = mss > 0 ? mss : 1460, .stream = true});
  return policy.next_chunk(static_cast<std::size_t>(left));
}

ChunkPolicy patch_policy(unsigned wmem, unsigned mss, bool sndbuf_set) {
  return ChunkPolicy(PolicyKind::cygwin_patch, {.sndbuf = wmem, .mss = mss, .stream = true, .sndbuf_set = sndbuf_set});
}

void check_one(u64 left, u64 len, unsigned wmem, unsigned mss, bool set) {
  const u64 got = cygwin_piece(left, len, wmem, mss, set ? 1 : 0);
  ASSERT_EQ(got, expected_piece(left, len, wmem, mss, set))
      << "left " << left << " len " << len << " wmem " << wmem << " mss " << mss << " set " << set;
  ASSERT_EQ(cygwin_piece_as_c(left, len, wmem, mss, set ? 1 : 0), got) << "C build, left " << left << " wmem " << wmem;
  // core's cygwin-patch is this function (its int64 sizes aside: SO_SNDBUF 0 is "unknown" there).
  if (wmem > 0 || left <= CYGWIN_PIECE_MAX) {
    ASSERT_EQ(patch_policy(wmem, mss, set).next_chunk(static_cast<std::size_t>(left), static_cast<std::size_t>(len)), got)
        << "core cygwin-patch, left " << left << " len " << len << " wmem " << wmem << " mss " << mss << " set " << set;
  }
  // SNDBUF_SET changes a piece only in the quarter regime, only for a send below SO_SNDBUF, and
  // then sends the rest whole.
  if (set && got != cygwin_piece(left, len, wmem, mss, 0)) {
    ASSERT_TRUE(quarter_regime(wmem, mss) && len < wmem && got == left) << "left " << left << " wmem " << wmem;
  }
  // The patch asks Winsock for the MSS only for messages above wmem / 4: none below is split.
  if (left <= wmem / 4) {
    ASSERT_EQ(got, left) << "split at or below wmem / 4: left " << left;
  }
  if (left == 0) return;
  ASSERT_GE(got, 1u);
  ASSERT_LE(got, left);
  ASSERT_LE(got, CYGWIN_PIECE_MAX);  // fits the int length of send() and a DWORD
}

// LEFT as a whole send and as the rest of longer sends (below, at and above SO_SNDBUF), with
// SO_SNDBUF set and unset.
void check(u64 left, unsigned wmem, unsigned mss) {
  for (const u64 len : {left, left + 1, left + wmem / 2 + 1, left + u64{wmem}})
    for (const bool set : {false, true}) ASSERT_NO_FATAL_FAILURE(check_one(left, len, wmem, mss, set));
}

TEST(CygwinPiece, WorkedExamples) {
  // SO_SNDBUF 65536, 131072-byte writes, MSS 1460 (S >= 5M): today 65536 + 65536; patched
  // quarter-quota pieces of 11 MSS = 16060, the 2592-byte rest with the last.
  EXPECT_EQ(piece(131072, 65536, 1460), 16060u);
  EXPECT_EQ(piece(131072 - 7 * 16060, 65536, 1460), 16060u);
  EXPECT_EQ(piece(2592, 65536, 1460), 2592u);
  EXPECT_EQ(piece(17519, 65536, 1460), 17519u);  // < one piece + one MSS: whole
  // M < S < 5M, the seed's get_chunk: 8192 into SO_SNDBUF 6000 -> 5840 + 2352; below S whole.
  EXPECT_EQ(piece(8192, 6000, 1460), 5840u);
  EXPECT_EQ(piece(2352, 6000, 1460), 2352u);
  EXPECT_EQ(piece(5999, 6000, 1460), 5999u);
  EXPECT_EQ(piece(6000 + 1000, 6000, 1460), 4380u);  // the rest >= one MSS: 4380 + 2620
  // Windows XP's 8192 with MSS 1460 (S >= 5M): one-MSS pieces; the last takes the rest < 2 MSS.
  EXPECT_EQ(piece(8192, 8192, 1460), 1460u);
  EXPECT_EQ(piece(2919, 8192, 1460), 2919u);
  // Cygwin's default wmem: 36 MSS = 52560 (a send below wmem is cut too, S >= 5M).
  EXPECT_EQ(piece(1 << 20, 212992, 1460), 52560u);
  EXPECT_EQ(piece(65536, 212992, 1460), 52560u);
  EXPECT_EQ(piece(54019, 212992, 1460), 54019u);
  // Jumbo MSS: the seed's pieces (7 MSS below 65536), not quarter-quota ones.
  EXPECT_EQ(piece(1 << 20, 65536, 8960), 62720u);
  // No whole MSS below SO_SNDBUF, or MSS unknown: today's pieces of wmem.
  EXPECT_EQ(piece(100000, 1460, 1460), 1460u);
  EXPECT_EQ(piece(100000, 1024, 1460), 1024u);
  EXPECT_EQ(piece(1000, 1024, 1460), 1000u);
  EXPECT_EQ(piece(100000, 8192, 0), 8192u);
  // SO_SNDBUF 0: no cut, at most CYGWIN_PIECE_MAX (a message of several 4 GiB buffers).
  EXPECT_EQ(piece(100000, 0, 1460), 100000u);
  EXPECT_EQ(piece(5ULL << 30, 0, 1460), CYGWIN_PIECE_MAX);
  EXPECT_EQ(piece(0, 8192, 1460), 0u);
}

// SO_SNDBUF set (SNDBUF_SET): a send below it goes whole, as today, where the quarter regime would
// cut it; a send of at least SO_SNDBUF is cut as with SO_SNDBUF unset, to its last piece.
TEST(CygwinPiece, WorkedExamplesSoSndbufSet) {
  // SO_SNDBUF 512k, 256k writes: whole (S plus one send in flight, as today); unset: 89 MSS.
  EXPECT_EQ(cygwin_piece(262144, 262144, 524288, 1460, 1), 262144u);
  EXPECT_EQ(cygwin_piece(262144, 262144, 524288, 1460, 0), 129940u);
  // Cygwin's default wmem set explicitly, 64k writes: whole; unset: 36 MSS.
  EXPECT_EQ(cygwin_piece(65536, 65536, 212992, 1460, 1), 65536u);
  EXPECT_EQ(cygwin_piece(65536, 65536, 212992, 1460, 0), 52560u);
  // SO_SNDBUF 8192, a 16k write: one-MSS pieces to the end, also once the rest is below 8192
  // (sent whole, its 324-byte last segment would wait behind a full quota for a delayed ACK).
  EXPECT_EQ(cygwin_piece(16384, 16384, 8192, 1460, 1), 1460u);
  EXPECT_EQ(cygwin_piece(16384 - 6 * 1460, 16384, 8192, 1460, 1), 1460u);
  EXPECT_EQ(cygwin_piece(1784, 16384, 8192, 1460, 1), 1784u);
  // SO_SNDBUF 65536, 128k writes: as unset.
  EXPECT_EQ(cygwin_piece(131072, 131072, 65536, 1460, 1), 16060u);
  // Outside the quarter regime a send below S goes whole either way.
  EXPECT_EQ(cygwin_piece(5999, 5999, 6000, 1460, 0), 5999u);
  EXPECT_EQ(cygwin_piece(60000, 60000, 65536, 8960, 0), 60000u);
  // LEFT > LEN: LEN taken as unknown, the rule off.
  EXPECT_EQ(cygwin_piece(65536, 0, 212992, 1460, 1), 52560u);
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
      for (u64 len = 1024; len <= (1u << 20); len *= 2)
        for (const bool set : {false, true}) {
          const ChunkPolicy policy(mss < wmem ? PolicyKind::robust : PolicyKind::cygwin,
                                   {.sndbuf = wmem, .mss = mss, .stream = true});
          std::vector<std::size_t> plan;
          for (u64 left = len; left > 0;) {
            const u64 n = cygwin_piece(left, len, wmem, mss, set ? 1 : 0);
            ASSERT_GE(n, 1u) << "left " << left << " wmem " << wmem;  // else the loop would not end
            plan.push_back(static_cast<std::size_t>(n));
            left -= n;
          }
          const auto want = set && len < wmem ? std::vector<std::size_t>{static_cast<std::size_t>(len)}
                                              : policy.plan(static_cast<std::size_t>(len));
          ASSERT_EQ(plan, want) << "len " << len << " wmem " << wmem << " set " << set;
          ASSERT_EQ(plan, patch_policy(wmem, mss, set).plan(static_cast<std::size_t>(len)))
              << "core cygwin-patch, len " << len << " wmem " << wmem << " set " << set;
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
      for (u64 len = wmem; len <= 3ull * wmem + mss; len += mss / 3 + 1)
        for (const int set : {0, 1})
          for (u64 left = len; left > 0;) {
            const u64 n = cygwin_piece(left, len, wmem, mss, set);
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

// send_internal's stream loop (winsup/cygwin/fhandler/socket_inet.cc), ported line by line: the
// byte counts of the WSASendTo calls it makes for one message of buffers LENS, every call
// accepting all of its bytes. PATCHED: with the patch's cygwin_piece and `left`; else today's
// pieces of wmem (). Cygwin reads lpBuffers[in_idx] once in_idx reached the count (after the
// last piece); the port stops the loop there instead.
std::vector<u64> cygwin_send_calls(const std::vector<unsigned>& lens, unsigned wmem, unsigned mss, bool patched,
                                   bool sndbuf_set) {
  std::vector<u64> calls;
  const auto count = static_cast<unsigned>(lens.size());
  u64 left = 0;
  for (const unsigned len : lens) left += len;
  const u64 total = left;
  for (unsigned in_idx = 0, in_off = 0; in_idx < count;) {
    std::vector<unsigned> out_buf;
    u64 out_len = 0;
    const u64 piece = patched ? cygwin_piece(left, total, wmem, mss, sndbuf_set ? 1 : 0) : wmem;
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
      for (const auto& lens : messages)
        for (const bool set : {false, true}) {
          u64 total = 0;
          for (const unsigned len : lens) total += len;
          const ChunkPolicy today(PolicyKind::cygwin, {.sndbuf = wmem, .mss = 1460, .stream = true});
          std::vector<u64> plan_today, plan_patched;
          for (const std::size_t n : today.plan(static_cast<std::size_t>(total))) plan_today.push_back(n);
          for (u64 left = total; left > 0; left -= plan_patched.back()) {
            plan_patched.push_back(cygwin_piece(left, total, wmem, mss, set ? 1 : 0));
            ASSERT_GE(plan_patched.back(), 1u) << "left " << left;  // else the loop would not end
          }
          if (total == 0) plan_today = plan_patched = {0};  // one WSASendTo of nothing, as before
          EXPECT_EQ(cygwin_send_calls(lens, wmem, mss, false, set), plan_today) << "wmem " << wmem << " total " << total;
          EXPECT_EQ(cygwin_send_calls(lens, wmem, mss, true, set), plan_patched)
              << "wmem " << wmem << " mss " << mss << " total " << total << " buffers " << lens.size() << " set " << set;
        }
}

}  // namespace
}  // namespace ackstall::core
