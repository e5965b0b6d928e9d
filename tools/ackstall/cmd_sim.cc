// ackstall sim: run simulator scenarios (TOML) and report goodput and stalls.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/scenario/fields.h"
#include "ackstall/scenario/profiles.h"
#include "ackstall/scenario/scenario.h"
#include "app.h"
#include "sim_pcap.h"
#include "sim_plot.h"
#include "sim_report.h"

namespace ackstall::tools {
namespace {

struct SimOptions {
  std::vector<std::string> files;
  std::vector<std::string> sets;
  bool json = false;
  std::string pcap_path;
  std::uint32_t snaplen = 128;
  std::string plot_path;
  bool list_profiles = false;
  bool list_keys = false;
  unsigned jobs = 0;
};

// A TraceSink that forwards to up to two sinks (pcap and plot may both be asked for).
class TeeSink final : public sim::TraceSink {
 public:
  TeeSink(sim::TraceSink* a, sim::TraceSink* b) : a_(a), b_(b) {}
  void on_frame(const sim::WireFrame& f) override {
    if (a_) a_->on_frame(f);
    if (b_) b_->on_frame(f);
  }
  void on_stall(const sim::StallMarker& s) override {
    if (a_) a_->on_stall(s);
    if (b_) b_->on_stall(s);
  }

 private:
  sim::TraceSink* a_;
  sim::TraceSink* b_;
};

void list_profiles(std::ostream& out) {
  fmt::print(out, "TCP profiles (sender.profile / receiver.profile):\n");
  for (const auto& p : scenario::tcp_profiles())
    fmt::print(out, "  {:<16} {}\n  {:<16} sources: {}\n", p.name, p.summary, "", p.sources);
  fmt::print(out, "Link presets (link.preset):\n");
  for (const auto& l : scenario::link_presets())
    fmt::print(out, "  {:<18} {}\n  {:<18} sources: {}\n", l.name, l.summary, "", l.sources);
}

void list_keys(std::ostream& out) {
  for (const auto& f : scenario::fields())
    fmt::print(out, "{:<40} {:<28} {}\n", f.path, f.type, f.description);
}

core::Result<SimRun> run_one(const std::string& file, scenario::Scenario sc, sim::TraceSink* sink) {
  const auto t0 = std::chrono::steady_clock::now();
  auto summary = sim::run_experiment(sc.config, sink);
  if (!summary) return tl::unexpected(summary.error());
  const auto t1 = std::chrono::steady_clock::now();
  return SimRun{file, std::move(sc), *summary, std::chrono::duration<double>(t1 - t0).count()};
}

int execute(const SimOptions& o, Io io) {
  if (o.list_profiles) list_profiles(io.out);
  if (o.list_keys) list_keys(io.out);
  if (o.files.empty()) {
    if (o.list_profiles || o.list_keys) return kExitOk;
    return fail(io, "sim: a SCENARIO.toml file is required (see examples/seed/)", kExitUsage);
  }
  if ((!o.pcap_path.empty() || !o.plot_path.empty()) && o.files.size() != 1) {
    return fail(io, "sim: --pcap and --plot take exactly one scenario", kExitUsage);
  }
  std::vector<scenario::Scenario> scenarios;
  for (const std::string& f : o.files) {
    auto sc = scenario::load_scenario_file(f, o.sets);
    if (!sc) return fail(io, sc.error(), kExitUsage);
    scenarios.push_back(std::move(*sc));
  }

  std::vector<SimRun> runs;
  if (scenarios.size() == 1) {
    std::unique_ptr<PcapTraceSink> pcap_sink;
    if (!o.pcap_path.empty()) {
      auto w = pcap::Writer::create(o.pcap_path, pcap::WriterOptions{o.snaplen});
      if (!w) return fail(io, w.error());
      pcap_sink = std::make_unique<PcapTraceSink>(std::move(*w));
    }
    std::unique_ptr<PlotTraceSink> plot_sink;
    if (!o.plot_path.empty()) plot_sink = std::make_unique<PlotTraceSink>();
    TeeSink tee(pcap_sink.get(), plot_sink.get());
    const bool traced = pcap_sink || plot_sink;
    auto run = run_one(o.files[0], std::move(scenarios[0]), traced ? &tee : nullptr);
    if (!run) return fail(io, run.error());
    runs.push_back(std::move(*run));
    if (pcap_sink) {
      if (auto r = pcap_sink->writer().flush(); !r && !pcap_sink->error()) return fail(io, r.error());
      if (pcap_sink->error()) return fail(io, *pcap_sink->error());
    }
    if (plot_sink) {
      const std::string title = runs[0].scenario.name.empty() ? o.files[0] : runs[0].scenario.name;
      if (auto r = plot_sink->render(o.plot_path, title); !r)
        return fail(io, r.error(), kExitFailure, fmt::format("--plot {}: ", o.plot_path));
    }
  } else {
    // Independent simulations: run them on parallel threads (no shared state), report in order.
    const unsigned jobs = o.jobs != 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    runs.resize(scenarios.size());
    for (std::size_t begin = 0; begin < scenarios.size(); begin += jobs) {
      std::vector<std::future<core::Result<SimRun>>> batch;
      for (std::size_t i = begin; i < std::min(scenarios.size(), begin + jobs); ++i)
        batch.push_back(std::async(std::launch::async, run_one, o.files[i], std::move(scenarios[i]),
                                   nullptr));
      for (std::size_t k = 0; k < batch.size(); ++k) {
        auto run = batch[k].get();
        if (!run) return fail(io, run.error());
        runs[begin + k] = std::move(*run);
      }
    }
  }

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
  return kExitOk;
}

}  // namespace

void add_sim_command(CLI::App& parent, Action& selected) {
  auto o = std::make_shared<SimOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "sim", "Simulate scenarios (TOML): goodput, stalls, pcap and time-sequence plots");
  cmd->add_option("scenario", o->files, "scenario files; several print the seed's table")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", o->sets, "override one key, e.g. --set receiver.ack.ack_on_push=true")
      ->allow_extra_args(false);
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->add_option("--pcap", o->pcap_path, "write the wire trace as pcap (Ethernet, ns timestamps)");
  cmd->add_option("--snaplen", o->snaplen, "bytes kept per frame in the pcap")
      ->check(CLI::Range(54u, 262144u));
  cmd->add_option("--plot", o->plot_path, "write a time-sequence graph (PNG, needs gnuplot)");
  cmd->add_flag("--list-profiles", o->list_profiles, "list TCP profiles and link presets with sources");
  cmd->add_flag("--list-keys", o->list_keys, "list every scenario key with its type");
  cmd->add_option("-j,--jobs", o->jobs, "parallel simulations (default: one per core)")
      ->check(CLI::Range(1u, 256u));
  cmd->callback([o, &selected] { selected = [o](Io io) { return execute(*o, io); }; });
}

}  // namespace ackstall::tools
