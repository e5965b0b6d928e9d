// ackstall sim: run simulator scenarios (TOML) and report goodput and stalls.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <future>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <iterator>
#include <vector>

#include "choice_option.h"
#include "ackstall/scenario/fields.h"
#include "ackstall/scenario/profiles.h"
#include "ackstall/scenario/scenario.h"
#include "app.h"
#include "ackstall/core/units.h"
#include "sim_keys.h"
#include "ackstall/analysis/sim_causes.h"
#include "ackstall/report/gnuplot.h"
#include "ackstall/report/scenario_keys.h"
#include "ackstall/report/sim_plot.h"
#include "ackstall/sim/cause_accounts.h"
#include "ackstall/analysis/sim_pcap.h"
#include "sim_report.h"
#include "sim_sweep.h"
#include "stall_threshold_option.h"

namespace ackstall::tools {
namespace {

struct SimOptions {
  std::vector<std::string> files;
  std::vector<std::string> sets;
  bool json = false;
  bool no_causes = false;  // --no-causes: no causes line for a single run
  std::string causes = "own";  // --causes: whose accounts (analysis/sim_causes.h)
  std::string pcap_path;
  std::uint32_t snaplen = 128;
  std::string pcap_at = "wire";
  std::string plot_path;
  std::string plot_window;
  bool list_profiles = false;
  bool list_keys = false;
  bool show_config = false;
  bool defaults = false;
  std::optional<core::StallThreshold> stall_threshold;  // --stall-threshold
  std::vector<std::string> sweeps;
  std::string csv_path;
  std::string shard;
  unsigned jobs = 0;
};

constexpr const char* kDefaultsSource = "(defaults)";

// A TraceSink that forwards to several (the causes, and pcap and plot when asked for).
class TeeSink final : public sim::TraceSink {
 public:
  explicit TeeSink(std::vector<sim::TraceSink*> sinks) : sinks_(std::move(sinks)) {}
  void on_frame(const sim::WireFrame& f) override {
    for (auto* s : sinks_) s->on_frame(f);
  }
  void on_stall(const sim::StallMarker& m) override {
    for (auto* s : sinks_) s->on_stall(m);
  }

 private:
  std::vector<sim::TraceSink*> sinks_;
};

void list_profiles(std::ostream& out) {
  fmt::print(out, "TCP profiles (sender.profile / receiver.profile):\n");
  for (const auto& p : scenario::tcp_profiles())
    fmt::print(out, "  {:<16} {}\n  {:<16} sources: {}\n", p.name, p.summary, "", p.sources);
  fmt::print(out, "Link presets (link.preset):\n");
  for (const auto& l : scenario::link_presets())
    fmt::print(out, "  {:<18} {}\n  {:<18} sources: {}\n", l.name, l.summary, "", l.sources);
}

core::Result<SimRun> run_one(const std::string& file, scenario::Scenario sc, sim::TraceSink* sink) {
  const auto t0 = std::chrono::steady_clock::now();
  auto summary = sim::run_experiment(sc.config, sink);
  if (!summary) return tl::unexpected(summary.error());
  const auto t1 = std::chrono::steady_clock::now();
  return SimRun{file, std::move(sc), *summary, std::chrono::duration<double>(t1 - t0).count(), {}, {}};
}

unsigned job_count(const SimOptions& o) {
  return o.jobs != 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
}

// The scenario sources: the files given, or the built-in defaults (--defaults).
std::vector<std::string> sources(const SimOptions& o) {
  return o.defaults ? std::vector<std::string>{kDefaultsSource} : o.files;
}

// A scenario, its warnings (old key names, scenario/fields.h) shown on ERR.
core::Result<scenario::Scenario> load(const std::string& source, const std::vector<std::string>& sets,
                                      std::ostream& err) {
  auto sc = source == kDefaultsSource ? scenario::parse_scenario("", source, sets)
                                       : scenario::load_scenario_file(source, sets);
  if (!sc) return tl::unexpected(name_set_flag(std::move(sc.error()), source));
  for (const std::string& w : sc->warnings) err << "ackstall: warning: " << w << '\n';
  return sc;
}

int execute_sweep(const SimOptions& o, const std::optional<core::StallThreshold>& threshold, Io io) {
  if (sources(o).size() != 1) return fail(io, "sim: --sweep takes exactly one scenario (or --defaults)", kExitUsage);
  if (!o.pcap_path.empty() || !o.plot_window.empty())
    return fail(io, "sim: --pcap and --plot-window trace one run, not a sweep", kExitUsage);
  if (o.causes != "own") return fail(io, "sim: --causes " + o.causes + " reads one run, not a sweep", kExitUsage);
  // The file's [sweep] axes (less those --sweep names again), then --sweep's.
  auto base = load(sources(o)[0], o.sets, io.err);
  if (!base) return fail(io, base.error(), kExitUsage);
  std::vector<scenario::SweepAxis> axes;
  for (const std::vector<std::string>* specs : {&std::as_const(base->sweep_axes), &o.sweeps})
    for (const std::string& spec : *specs) {
      auto axis = scenario::parse_sweep_axis(spec);
      if (!axis) {
        return fail(io, axis.error(), kExitUsage, specs == &o.sweeps ? "--sweep " : sources(o)[0] + ": sweep.axes: ");
      }
      if (const auto* f = scenario::find_field(axis->key); f != nullptr && !f->replaced_by.empty())
        io.err << "ackstall: warning: --sweep " << axis->key << ": an old name of one term of " << f->replaced_by
               << " (old names go in the next release)\n";
      const bool replaced = specs == &base->sweep_axes &&
                            std::any_of(o.sweeps.begin(), o.sweeps.end(),
                                        [&](const std::string& x) { return x.starts_with(axis->key + "="); });
      if (!replaced) axes.push_back(std::move(*axis));
    }
  auto sweep = scenario::Sweep::make(std::move(axes));
  if (!sweep) return fail(io, sweep.error(), kExitUsage, "--sweep ");
  SweepRun run;
  run.source = sources(o)[0];
  run.title = base->name;
  run.sweep = std::move(*sweep);
  if (!o.shard.empty()) {
    auto shard = scenario::parse_shard(o.shard);
    if (!shard) return fail(io, shard.error(), kExitUsage, "--shard ");
    run.shard = *shard;
  }
  auto text = run.source == kDefaultsSource ? core::Result<std::string>(std::string())
                                            : scenario::read_scenario_text(run.source);
  if (!text) return fail(io, text.error(), kExitUsage);
  run.toml = std::move(*text);
  run.sets = o.sets;
  run.jobs = job_count(o);
  run.stall_threshold = threshold;
  run.csv_path = o.csv_path;
  run.json_lines = o.json;
  run.plot_path = o.plot_path;
  run.progress = &io.err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  return run_sweep(run, io);
}

int execute(const SimOptions& o, Io io) {
  // A file that cannot be opened is a runtime failure (exit 1), worded as scan words it.
  for (const std::string& f : o.files) {
    if (std::FILE* in = std::fopen(f.c_str(), "rb")) {
      std::fclose(in);
    } else {
      return fail(io, fmt::format("sim: {}: cannot open: {}", f, std::strerror(errno)), kExitFailure);
    }
  }
  if (o.list_profiles) list_profiles(io.out);
  if (o.list_keys) report::list_keys(io.out, o.json);
  if (o.defaults && !o.files.empty())
    return fail(io, "sim: give scenario files or --defaults, not both", kExitUsage);
  if (sources(o).empty()) {
    if (o.list_profiles || o.list_keys) return kExitOk;
    return fail(io,
                "sim: a SCENARIO.toml file is required (see examples/seed/), or --defaults for the "
                "built-in run (the seed's unpatched setup)",
                kExitUsage);
  }
  const std::optional<core::StallThreshold> threshold = o.stall_threshold;
  if (!o.sweeps.empty()) return execute_sweep(o, threshold, io);
  if (sources(o).size() == 1 && !o.show_config) {  // a map file: [sweep] axes
    std::ostringstream warnings;  // shown by whichever path runs it
    auto sc = load(sources(o)[0], o.sets, warnings);
    if (sc && !sc->sweep_axes.empty()) return execute_sweep(o, threshold, io);
  }
  if (!o.csv_path.empty() || !o.shard.empty())
    return fail(io, "sim: --csv and --shard need --sweep", kExitUsage);
  if ((!o.pcap_path.empty() || !o.plot_path.empty()) && sources(o).size() != 1) {
    return fail(io, "sim: --pcap and --plot take exactly one scenario", kExitUsage);
  }
  if (o.causes != "own" && sources(o).size() != 1)
    return fail(io, "sim: --causes " + o.causes + " reads one run, not the table of several", kExitUsage);
  if (!o.plot_window.empty() && o.plot_path.empty())
    return fail(io, "sim: --plot-window needs --plot", kExitUsage);
  report::PlotWindow window;
  if (!o.plot_window.empty()) {
    auto w = report::parse_plot_window(o.plot_window);
    if (!w) return fail(io, w.error(), kExitUsage);
    window = *w;
  }
  if (!o.plot_path.empty())
    if (auto t = report::terminal_for(o.plot_path, 1, 1); !t) return fail(io, t.error(), kExitUsage, "--plot ");
  std::vector<scenario::Scenario> scenarios;
  for (const std::string& f : sources(o)) {
    auto sc = load(f, o.sets, io.err);
    if (!sc) return fail(io, sc.error(), kExitUsage);
    if (threshold) sc->config.stall_threshold = *threshold;
    scenarios.push_back(std::move(*sc));
  }
  if (o.show_config) {
    for (const auto& sc : scenarios) report::show_config(io.out, sc, o.json);
    return kExitOk;
  }
  const std::vector<std::string> files = sources(o);

  std::vector<SimRun> runs;
  if (scenarios.size() == 1) {
    std::unique_ptr<analysis::PcapTraceSink> pcap_sink;
    if (!o.pcap_path.empty()) {
      auto w = pcap::Writer::create(o.pcap_path, pcap::WriterOptions{o.snaplen});
      if (!w) return fail(io, w.error());
      pcap_sink = std::make_unique<analysis::PcapTraceSink>(std::move(*w), *analysis::parse_capture_point(o.pcap_at));
    }
    std::unique_ptr<report::PlotTraceSink> plot_sink;
    if (!o.plot_path.empty()) plot_sink = std::make_unique<report::PlotTraceSink>();
    // The causes (analysis/sim_causes.h): the simulator's own accounts, the scanner's reading of
    // its frames, or both held to agree.
    const bool own_causes = !o.no_causes && o.causes != "scanner";
    const bool scanner_causes = !o.no_causes && o.causes != "own";
    sim::CauseAccountant own(scenarios[0].config.stall_threshold);
    analysis::CauseTraceSink scanned(scenarios[0].config.stall_threshold);
    std::vector<sim::TraceSink*> sinks;
    if (own_causes) sinks.push_back(&own);
    if (scanner_causes) sinks.push_back(&scanned);
    if (pcap_sink) sinks.push_back(pcap_sink.get());
    if (plot_sink) sinks.push_back(plot_sink.get());
    // One sink (the default: the causes alone) is called directly, several through the tee.
    sim::TraceSink* const single = sinks.size() == 1 ? sinks[0] : nullptr;
    const bool traced = !sinks.empty();
    TeeSink tee(std::move(sinks));
    auto run = run_one(files[0], std::move(scenarios[0]), single != nullptr ? single : traced ? &tee : nullptr);
    if (!run) return fail(io, run.error());
    std::optional<analysis::CauseComparison> check;
    if (own_causes) {
      const sim::CauseAccounts a = own.finish();
      run->causes = analysis::cause_shares(a.cause_ns, a.duration_ns);
      if (scanner_causes) {
        const auto d = scanned.finish();
        if (!d) return fail(io, "sim: --causes check: the scanner read no direction with data in the run's frames");
        check = analysis::compare_causes(a, *d);
      }
    } else if (scanner_causes) {
      if (const auto d = scanned.finish()) run->causes = pcap::diagnose(*d).accounts;
    }
    if (check) run->causes_check = check->agree ? "" : check->detail;
    runs.push_back(std::move(*run));
    if (pcap_sink)
      if (auto r = pcap_sink->finish(); !r) return fail(io, r.error());
    if (plot_sink) {
      const std::string title = runs[0].scenario.name.empty() ? files[0] : runs[0].scenario.name;
      if (auto r = plot_sink->render(o.plot_path, title, window); !r)
        return fail(io, r.error(), kExitFailure, fmt::format("--plot {}: ", o.plot_path));
    }
  } else {
    // Independent simulations: run them on parallel threads (no shared state), report in order.
    const unsigned jobs = job_count(o);
    runs.resize(scenarios.size());
    for (std::size_t begin = 0; begin < scenarios.size(); begin += jobs) {
      std::vector<std::future<core::Result<SimRun>>> batch;
      for (std::size_t i = begin; i < std::min(scenarios.size(), begin + jobs); ++i)
        batch.push_back(std::async(std::launch::async, run_one, files[i], std::move(scenarios[i]),
                                   nullptr));
      for (std::size_t k = 0; k < batch.size(); ++k) {
        auto run = batch[k].get();
        if (!run) return fail(io, run.error());
        runs[begin + k] = std::move(*run);
      }
    }
  }

  const bool disagree = runs.size() == 1 && runs[0].causes_check && !runs[0].causes_check->empty();
  if (disagree) io.err << "ackstall: sim: the simulator's causes and the scanner's disagree: " << *runs[0].causes_check << '\n';
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const SimRun& r : runs) j.push_back(summary_json(r));
    io.out << (runs.size() == 1 ? j[0] : j).dump(2) << '\n';
  } else if (runs.size() == 1) {
    print_summary(io.out, runs[0]);
    if (!o.pcap_path.empty()) fmt::print(io.out, "pcap       {}\n", o.pcap_path);
    if (!o.plot_path.empty()) fmt::print(io.out, "plot       {}\n", o.plot_path);
  } else {
    print_table(io.out, runs);
  }
  return disagree ? kExitFailure : kExitOk;
}

}  // namespace

void add_sim_command(CLI::App& parent, Action& selected) {
  auto o = std::make_shared<SimOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "sim", "Simulate scenarios (TOML): goodput, stalls, pcap and time-sequence plots");
  cmd->add_option("scenario", o->files, "scenario files; several print the seed's table");
  cmd->add_flag("--defaults", o->defaults,
                "run the built-in defaults (the seed's unpatched setup, sim/config.h) instead of a file");
  cmd->add_option("--set", o->sets, "override one key, e.g. --set receiver.ack.ack_on_push=true")
      ->allow_extra_args(false);
  cmd->add_option("--sweep", o->sweeps,
                  "sweep one key: KEY=V1,V2,... or KEY=A..B:STEP or KEY=A..B:xF; several make the "
                  "cartesian product")
      ->allow_extra_args(false);
  cmd->add_option("--csv", o->csv_path, "a sweep's rows as CSV to FILE ('-': stdout)");
  cmd->add_option("--shard", o->shard, "run the I-th of N interleaved parts of a sweep (I/N)");
  cmd->add_flag("--json", o->json, "print JSON (a sweep: one JSON object per line)");
  auto* causes_opt = cmd->add_option("--causes", o->causes,
                  "whose causes line (each moment of one run to one cause): own (the simulator's stalls, the "
                  "default), scanner (its frames read by the capture scanner, as `ackstall scan`), or check "
                  "(both: exit 1 naming the first cause they disagree on)")
      ->check(one_of({"own", "scanner", "check"}));
  cmd->add_flag("--no-causes", o->no_causes, "no causes line: the simulation alone")->excludes(causes_opt);
  add_stall_threshold_option(
      *cmd, [o](core::StallThreshold t) { o->stall_threshold = t; },
      "waits longer than this count as stalls, shorter ones are reported apart");
  auto* pcap_opt = cmd->add_option("--pcap", o->pcap_path, "write the wire trace as pcap (Ethernet, ns timestamps)");
  cmd->add_option("--pcap-at", o->pcap_at,
                  "where the pcap is taken: wire (a tap, every frame at its first bit), sender or receiver "
                  "(that host's capture: its own frames leaving, the peer's at their last bit in)")
      ->check(one_of(std::vector<std::string>(std::begin(analysis::kCapturePointNames), std::end(analysis::kCapturePointNames))))
      ->needs(pcap_opt);
  cmd->add_option("--snaplen", o->snaplen, "bytes kept per frame in the pcap")
      ->check(CLI::Range(54u, 262144u));
  cmd->add_option("--plot", o->plot_path,
                  "a time-sequence graph of one run, or a map of a sweep (.png, .svg or .pdf; needs gnuplot)");
  cmd->add_option("--plot-window", o->plot_window, "the time span to plot, A..B (seconds or durations: 0.5..1, 200ms..1s)");
  cmd->add_flag("--list-profiles", o->list_profiles, "list TCP profiles and link presets with sources");
  cmd->add_flag("--list-keys", o->list_keys,
                "list every scenario key with its type, default, unit and grammar");
  cmd->add_flag("--show-config", o->show_config,
                "print the resolved scenario: every key, its value and where it came from");
  cmd->add_option("-j,--jobs", o->jobs, "parallel simulations (default: one per core)")
      ->check(CLI::Range(1u, 256u));
  cmd->callback([o, &selected] { selected = [o](Io io) { return execute(*o, io); }; });
}

}  // namespace ackstall::tools
