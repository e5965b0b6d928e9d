// The robust chunk policy over the stall map (issue 10 point 4; core/chunk_policy.h,
// docs/STACKS.md §8): in every cell of a grid of write size x SO_SNDBUF x MSS x receiver x
// sender Nagle, robust's goodput is >= 0.95 of the best of none/seed/cygwin in that cell, and
// robust has no delayed-ACK or Nagle stall that one of them avoided. Plus the sender's wake-up:
// >= 0.95 of the link ceiling at app.transmitter.wakeup up to 300 us in the two
// scenarios the issue names.
//
// The reduced grid runs in ctest (label sim;slow: exclude it from sanitizer runs with
// `-LE slow`). The full map of the issue (19 write sizes x 9 SO_SNDBUF x 5 MSS x 5 receivers
// x 3 Nagle = 12,825 cells) runs with ACKSTALL_FULL_MAP=1 (DISABLED_FullMap, see below):
//   ACKSTALL_FULL_MAP=1 ACKSTALL_MAP_THREADS=2 build/release/tests/sim/sim_robust_map_test
//     --gtest_also_run_disabled_tests --gtest_filter='*FullMap*'     (one command line)
#include "ackstall/scenario/profiles.h"
#include "ackstall/scenario/runner.h"
#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ackstall::sim {
namespace {

using core::PolicyKind;

struct Cell {
  std::int64_t write_len, sndbuf, mss;
  std::string receiver;
  NagleKind nagle;
};

std::string describe(const Cell& c) {
  return "write " + std::to_string(c.write_len) + " sndbuf " + std::to_string(c.sndbuf) + " mss " +
         std::to_string(c.mss) + " rx " + c.receiver + " nagle " + std::string(to_string(c.nagle));
}

std::string mode_from_env() {
  const char* raise = std::getenv("ACKSTALL_MAP_RAISE");
  return raise ? raise : "all";
}

// One run of a cell: the seed's Windows XP (AFD) sender, the named receiver profile, the link's
// MTU set so that the MSS is exactly `mss` (XP does not ask for timestamps, §1).
ExperimentConfig config_for(const Cell& c, PolicyKind policy) {
  ExperimentConfig cfg;
  cfg.link.mtu = static_cast<std::int32_t>(c.mss + 40);
  cfg.sender.send_buffer.size = c.sndbuf;
  cfg.sender.nagle = c.nagle;
  const auto* rx = scenario::find_profile(c.receiver);
  if (rx) cfg.receiver = rx->make();
  // Enough writes for a steady state, few enough for a map: >= 2 MiB or 300 writes.
  const std::int64_t writes = std::clamp<std::int64_t>((2 << 20) / c.write_len, 24, 300);
  cfg.app.transmitter.writes = writes;
  cfg.app.transmitter.write_len = c.write_len;
  cfg.app.transmitter.chunking = policy;
  // The application allows robust to raise SO_SNDBUF (KB823764's second way, docs/STACKS.md §8);
  // the policy decides where (core::ChunkPolicy::recommended_sndbuf: a send >= S with S below 16
  // MSS; at jumbo MSS S <= M, or M < S < 2M where the peer's window holds 4 MSS; at loopback MSS
  // S < 2M). The simulation applies it after the handshake (Simulation::apply).
  // ACKSTALL_MAP_RAISE=0: the application forbids it (robust on chunk sizes and TCP_NODELAY
  // alone); =small: allowed only where S < 2 MSS.
  const std::string mode = mode_from_env();
  cfg.app.transmitter.allow_raise_sndbuf =
      policy == PolicyKind::robust && (mode == "all" || (mode == "small" && c.sndbuf < 2 * c.mss));
  return cfg;
}

struct Outcome {
  double goodput = 0;
  std::uint64_t stalls = 0;  // delayed-ACK + Nagle-hold stalls (> 20 ms)
  bool ok = false;
};

Outcome run(const Cell& c, PolicyKind p) {
  auto s = run_experiment(config_for(c, p));
  if (!s) return {};
  return {s->goodput_mib_s, s->stalls.delayed_ack.count + s->stalls.nagle_hold.count, s->completed};
}

struct CellResult {
  Cell cell;
  double robust = 0, best = 0;
  PolicyKind best_kind = PolicyKind::none;
  std::uint64_t robust_stalls = 0, best_stalls = 0;
  // Fewest stalls of none/seed/cygwin with TCP_NODELAY on the sender (Nagle off): a stall
  // that one of them avoids is avoidable, and robust must avoid it too.
  std::uint64_t nodelay_stalls = 0;
  bool completed = true;
};

CellResult evaluate(const Cell& c) {
  CellResult r{c};
  const Outcome rb = run(c, PolicyKind::robust);
  r.robust = rb.goodput;
  r.robust_stalls = rb.stalls;
  r.completed = rb.ok;
  r.best_stalls = UINT64_MAX;
  for (PolicyKind k : {PolicyKind::none, PolicyKind::seed, PolicyKind::cygwin}) {
    const Outcome o = run(c, k);
    if (o.goodput > r.best) {
      r.best = o.goodput;
      r.best_kind = k;
    }
    r.best_stalls = std::min(r.best_stalls, o.stalls);
  }
  r.nodelay_stalls = UINT64_MAX;
  Cell off = c;
  off.nagle = NagleKind::off;
  for (PolicyKind k : {PolicyKind::none, PolicyKind::seed, PolicyKind::cygwin})
    r.nodelay_stalls = std::min(r.nodelay_stalls, c.nagle == NagleKind::off ? r.best_stalls : run(off, k).stalls);
  return r;
}

std::vector<Cell> grid(const std::vector<std::int64_t>& writes, const std::vector<std::int64_t>& sndbufs,
                       const std::vector<std::int64_t>& msss) {
  std::vector<Cell> cells;
  for (const char* rx : {"openbsd-3.9", "freebsd-6", "windows", "linux", "linux-pingpong"})
    for (NagleKind n : {NagleKind::classic, NagleKind::minshall, NagleKind::off})
      for (std::int64_t m : msss)
        for (std::int64_t b : sndbufs)
          for (std::int64_t w : writes) cells.push_back({w, b, m, rx, n});
  return cells;
}

// The cells on `threads` threads through the sweep runner `ackstall sim --sweep` uses
// (scenario/runner.h), collected in order.
std::vector<CellResult> evaluate_all(const std::vector<Cell>& cells, unsigned threads) {
  std::vector<CellResult> out;
  out.reserve(cells.size());
  scenario::run_ordered<CellResult>(
      cells.size(), std::max(1u, threads), [&](std::uint64_t i) { return evaluate(cells[i]); },
      [&](std::uint64_t, CellResult&& r) {
        out.push_back(std::move(r));
        return true;
      });
  return out;
}

unsigned threads_from_env() {
  if (const char* e = std::getenv("ACKSTALL_MAP_THREADS")) return static_cast<unsigned>(std::max(1, std::atoi(e)));
  return 2;
}

// Where robust does not meet the goal (docs/STACKS.md §8 has the counts). Every other cell must
// meet it; a cell in a gap must still not be below `floor`, so a regression shows. All appear
// only where the application forbids raising SO_SNDBUF (ACKSTALL_MAP_RAISE=0 or small): with
// the raise allowed no cell may miss the goal.
struct Gap {
  const char* why;
  double floor;
};
std::optional<Gap> known_gap(const Cell& c) {
  if (mode_from_env() == "all") return std::nullopt;
  const std::int64_t s = c.sndbuf, m = c.mss;
  if (s <= m)  // no whole-MSS piece fits and no raise is allowed: robust sends whole (policy_notice)
    return Gap{"SO_SNDBUF <= MSS without a raise: robust sends whole, stalls remain", 0.0};
  if (s >= 2 * m && s < 5 * m)  // robust = seed (no raise allowed); a whole large write has more in flight
    return Gap{"2 MSS <= SO_SNDBUF < 5 MSS: whole large writes beat the seed's chunks", 0.5};
  if (s > m && s < 2 * m)  // robust = seed's one-MSS chunks (only without an SO_SNDBUF raise):
    return Gap{"MSS < SO_SNDBUF < 2 MSS: two one-MSS chunks in flight; a whole large write keeps "
               "more in flight where the receiver ACKs it promptly", 0.2};
  if (m == 536 && s >= 2048 && s < 8 * m)
    return Gap{"mss 536, quota of 4-7 segments: the seed's larger chunks keep more in flight", 0.5};
  return std::nullopt;
}

// Checks every cell; prints the worst ratio. Returns the number of cells missing the goal.
// `max_avoidable` >= 0: at most that many stalled cells that TCP_NODELAY or a policy avoids, and
// none that a policy (none, seed, cygwin) avoids alone.
int check(const std::vector<CellResult>& rs, bool expect, int max_avoidable = -1) {
  int bad = 0, in_gaps = 0, avoidable_cells = 0, policy_avoidable = 0;
  double worst = 1e9;
  const CellResult* worst_cell = nullptr;
  for (const CellResult& r : rs) {
    const double ratio = r.best > 0 ? r.robust / r.best : 1.0;
    if (ratio < worst) {
      worst = ratio;
      worst_cell = &r;
    }
    // A stalled cell where a policy or TCP_NODELAY avoids every stall (the raise is robust's
    // own where the map allows it): robust must avoid it as well.
    const bool avoidable = r.robust_stalls > 0 && std::min(r.best_stalls, r.nodelay_stalls) == 0;
    if (r.robust_stalls > 0 && r.best_stalls == 0) ++policy_avoidable;
    if (avoidable) {
      ++avoidable_cells;
      std::printf("AVOIDABLE %s: robust %u stalls, TCP_NODELAY %u\n", describe(r.cell).c_str(),
                  static_cast<unsigned>(r.robust_stalls), static_cast<unsigned>(r.nodelay_stalls));
    }
    const bool fail = !r.completed || ratio < 0.95 || r.robust_stalls > r.best_stalls;
    if (!fail) continue;
    ++bad;
    const auto gap = known_gap(r.cell);
    if (gap) ++in_gaps;
    const std::string line = describe(r.cell) + ": robust " + std::to_string(r.robust) + " (" +
                             std::to_string(r.robust_stalls) + " stalls) best " + std::string(to_string(r.best_kind)) +
                             " " + std::to_string(r.best) + " (" + std::to_string(r.best_stalls) + " stalls) ratio " +
                             std::to_string(ratio) + (gap ? std::string(" [gap: ") + gap->why + "]" : "");
    std::printf("FAIL %s\n", line.c_str());
    if (expect) {
      EXPECT_TRUE(gap) << line;
      if (gap) { EXPECT_GE(ratio, gap->floor) << line; }
      EXPECT_TRUE(r.completed) << line;
    }
  }
  std::printf("stalled cells that a policy or TCP_NODELAY avoids: %d (a policy alone: %d)\n", avoidable_cells,
              policy_avoidable);
  if (max_avoidable >= 0) {
    EXPECT_LE(avoidable_cells, max_avoidable);
    EXPECT_EQ(policy_avoidable, 0) << "a stall that none, seed or cygwin avoids";
  }
  if (worst_cell)
    std::printf("cells %zu, below the goal %d (all in documented gaps: %s), worst ratio %.4f at %s (robust %.3f, "
                "best %s %.3f)\n",
                rs.size(), bad, in_gaps == bad ? "yes" : "no", worst, describe(worst_cell->cell).c_str(),
                worst_cell->robust, std::string(to_string(worst_cell->best_kind)).c_str(), worst_cell->best);
  return bad;
}

TEST(RobustMap, ReducedGrid) {
  // The boundaries that matter: below/at/above one MSS, the seed's 8192 and its 15928 case,
  // SO_SNDBUF below one MSS, between one and two MSS, the Winsock default and far above.
  const auto cells = grid({1, 1000, 1460, 8192, 15928, 65536, 262144}, {1024, 2048, 8192, 16384, 65536, 262144},
                          {536, 1460, 8960, 65483});
  const auto rs = evaluate_all(cells, threads_from_env());
  // Cells below the goal and stalled cells that TCP_NODELAY or a policy avoids: at most the
  // counts docs/STACKS.md §8 gives for this grid, with its command.
  const std::string mode = mode_from_env();
  EXPECT_LE(check(rs, true, mode == "all" ? 11 : -1), mode == "all" ? 0 : mode == "small" ? 10 : 78);
}

TEST(RobustMap, DISABLED_FullMap) {
  if (!std::getenv("ACKSTALL_FULL_MAP")) GTEST_SKIP() << "set ACKSTALL_FULL_MAP=1";
  std::vector<std::int64_t> writes, sndbufs;
  for (std::int64_t w = 1; w <= 262144; w *= 2) writes.push_back(w);   // 1 B .. 256 KiB, x2
  for (std::int64_t b = 1024; b <= 262144; b *= 2) sndbufs.push_back(b);  // 1 KiB .. 256 KiB, x2
  const auto rs = evaluate_all(grid(writes, sndbufs, {536, 1448, 1460, 8960, 65483}), threads_from_env());
  // At most the counts of docs/STACKS.md §8 for the full map.
  const std::string mode = mode_from_env();
  EXPECT_LE(check(rs, true, mode == "all" ? 0 : -1), mode == "all" ? 0 : mode == "small" ? 67 : 197);
}

// Off the grid the policy was measured on (the full map's sizes are powers of two): write sizes
// and SO_SNDBUF at 1.5 x a power of two, the same MSS, receivers and Nagle variants (10,200
// cells): a check that robust's rules were not fitted to the power-of-two sizes. Asserted with
// the raise allowed (the map's default); ACKSTALL_MAP_RAISE=small/0 print their cells only (the
// floors of known_gap() hold on the power-of-two map only; docs/STACKS.md §8).
TEST(RobustMap, DISABLED_OffGridMap) {
  if (!std::getenv("ACKSTALL_FULL_MAP")) GTEST_SKIP() << "set ACKSTALL_FULL_MAP=1";
  std::vector<std::int64_t> writes, sndbufs;
  for (std::int64_t w = 3; w <= 196608; w *= 2) writes.push_back(w);      // 3 B .. 192 KiB, x2
  for (std::int64_t b = 1536; b <= 196608; b *= 2) sndbufs.push_back(b);  // 1.5 .. 192 KiB, x2
  const auto rs = evaluate_all(grid(writes, sndbufs, {536, 1448, 1460, 8960, 65483}), threads_from_env());
  // None below the goal and at most the stalled cells docs/STACKS.md §8 counts that TCP_NODELAY
  // or a policy avoids.
  const bool asserted = mode_from_env() == "all";
  const int bad = check(rs, asserted, asserted ? 10 : -1);
  if (asserted) { EXPECT_EQ(bad, 0); }
}

// One cell, printed (debugging the map): ACKSTALL_CELL="write,sndbuf,mss,receiver,nagle".
TEST(RobustMap, DISABLED_Cell) {
  const char* e = std::getenv("ACKSTALL_CELL");
  if (!e) GTEST_SKIP() << "set ACKSTALL_CELL";
  char rx[64] = {}, nagle[16] = {};
  long long w = 0, b = 0, m = 0;
  ASSERT_EQ(std::sscanf(e, "%lld,%lld,%lld,%63[^,],%15s", &w, &b, &m, rx, nagle), 5);
  const Cell c{w, b, m, rx, *parse_nagle_kind(nagle)};
  for (PolicyKind k : core::kPolicyKinds) {
    auto s = run_experiment(config_for(c, k));
    ASSERT_TRUE(s);
    std::printf("%-7s %8.3f MiB/s ceiling %.3f segs %llu delack %llu/%.3fs nagle %llu/%.3fs quota %llu/%.3fs "
                "wakeup %llu sends %llu wb %llu rto %llu drops %llu rexmt %llu dur %.4f short-q %.4f short-w %.4f short-d %.4f acks %llu\n",
                std::string(to_string(k)).c_str(), s->goodput_mib_s, s->ceiling_mib_s,
                static_cast<unsigned long long>(s->data_segments),
                static_cast<unsigned long long>(s->stalls.delayed_ack.count), s->stalls.delayed_ack.time.seconds(),
                static_cast<unsigned long long>(s->stalls.nagle_hold.count), s->stalls.nagle_hold.time.seconds(),
                static_cast<unsigned long long>(s->stalls.quota_wait.count), s->stalls.quota_wait.time.seconds(),
                static_cast<unsigned long long>(s->stalls.wakeup.count),
                static_cast<unsigned long long>(s->send_calls), static_cast<unsigned long long>(s->would_block), static_cast<unsigned long long>(s->rto_fires), static_cast<unsigned long long>(s->drops), static_cast<unsigned long long>(s->retransmits), s->duration.seconds(),
                s->short_waits.quota_wait.time.seconds(), s->short_waits.wakeup.time.seconds(),
                s->short_waits.delayed_ack.time.seconds(), static_cast<unsigned long long>(s->pure_acks));
  }
}

// Wake-up robustness: goodput / ceiling for robust at app.transmitter.wakeup 0..300 us.
double ratio_at(const std::string& file, Nanos wakeup, bool raise) {
  const std::filesystem::path p = std::filesystem::path(ACKSTALL_SOURCE_DIR) / "examples" / file;
  const std::vector<std::string> sets = {"app.transmitter.chunking=robust"};
  auto sc = scenario::load_scenario_file(p.string(), sets);
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message());
  if (!sc) return 0;
  ExperimentConfig cfg = sc->config;
  cfg.app.transmitter.wakeup = Delay(wakeup);
  cfg.app.transmitter.allow_raise_sndbuf = raise;
  auto s = run_experiment(cfg);
  EXPECT_TRUE(s && s->completed);
  if (s)
    std::printf("%s robust%s wakeup %lld us: %.3f MiB/s, ceiling %.3f, ratio %.4f\n", file.c_str(),
                raise ? " (SO_SNDBUF raise allowed)" : "", static_cast<long long>(wakeup.count() / 1000),
                s->goodput_mib_s, s->ceiling_mib_s, s->goodput_mib_s / s->ceiling_mib_s);
  return s ? s->goodput_mib_s / s->ceiling_mib_s : 0;
}

TEST(RobustMap, WakeupLatencyLab) {
  // examples/lab: linux-pingpong receiver, the emulated 8192 quota, 8192-byte writes (seed: 0.86
  // of line at 300 us). Chunk sizes alone suffice here.
  for (int us : {20, 100, 200, 300})
    EXPECT_GE(ratio_at("lab/pingpong-seed-chunked.toml", Nanos::us(us), false), 0.95) << us << " us";
}

TEST(RobustMap, WakeupLatencySeedDefaults) {
  // examples/seed/07: XP -> OpenBSD, SO_SNDBUF 8192 = the write size. With 300 us the quota
  // itself limits (8192 bytes per RTT + wake-up): robust needs SO_SNDBUF raised (KB823764).
  for (int us : {100, 200, 300}) {
    EXPECT_GE(ratio_at("seed/07-patched-defaults.toml", Nanos::us(us), true), 0.95) << us << " us";
    (void)ratio_at("seed/07-patched-defaults.toml", Nanos::us(us), false);  // chunks alone: printed
  }
}

}  // namespace
}  // namespace ackstall::sim
