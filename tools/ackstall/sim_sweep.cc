#include "sim_sweep.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "ackstall/scenario/runner.h"
#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"
#include "sim_keys.h"
#include "ackstall/report/sim_map.h"
#include "sim_report.h"

namespace ackstall::tools {
namespace {

struct CellResult {
  std::uint64_t cell = 0;
  core::Result<sim::Summary> summary = core::fail("not run");
};

core::Result<sim::Summary> run_cell(const SweepRun& r, std::uint64_t cell) {
  std::vector<std::string> sets = r.sets;
  for (std::string& s : r.sweep.sets(cell)) sets.push_back(std::move(s));
  auto sc = scenario::parse_scenario(r.toml, r.source, sets, scenario::includes_beside(r.source));
  if (!sc) return tl::unexpected(name_set_flag(std::move(sc.error()), r.source));
  if (r.stall_threshold) sc->config.stall_threshold = *r.stall_threshold;
  return sim::run_experiment(sc->config);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string column(sim::StallKind kind, const char* suffix) { return std::string(core::to_string(kind)) + suffix; }

// One output format: a header, then one row per cell.
class RowWriter {
 public:
  RowWriter(std::ostream& out, const scenario::Sweep& sweep) : out_(out), sweep_(sweep) {}
  virtual ~RowWriter() = default;
  virtual void header() {}
  virtual void row(std::uint64_t cell, const sim::Summary& s) = 0;

 protected:
  std::ostream& out_;
  const scenario::Sweep& sweep_;
};

class CsvWriter final : public RowWriter {
 public:
  using RowWriter::RowWriter;
  void header() override {
    out_ << "cell";
    for (const auto& a : sweep_.axes()) out_ << ',' << csv_field(a.key);
    out_ << ",goodput_mib_s,ceiling_mib_s,completed,delayed_acks";
    for (auto k : sim::kStallKinds) out_ << ',' << column(k, "_s") << ',' << column(k, "_count");
    out_ << ",short_wait_s,data_segments,pure_acks,send_calls,events\n";
  }
  void row(std::uint64_t cell, const sim::Summary& s) override {
    out_ << cell;
    const auto at = sweep_.coordinates(cell);
    for (std::size_t i = 0; i < at.size(); ++i) out_ << ',' << csv_field(sweep_.axes()[i].values[at[i]]);
    out_ << fmt::format(",{:.6f},{:.6f},{},{}", s.goodput_mib_s, s.ceiling_mib_s, s.completed ? 1 : 0,
                        s.delayed_acks);
    for (auto k : sim::kStallKinds) {
      const sim::StallTotal& t = stall_total(s.stalls, k);
      out_ << fmt::format(",{:.6f},{}", t.time.seconds(), t.count);
    }
    out_ << fmt::format(",{:.6f},{},{},{},{}\n", total_time(s.short_waits), s.data_segments, s.pure_acks,
                        s.send_calls, s.events);
  }
};

class JsonLinesWriter final : public RowWriter {
 public:
  using RowWriter::RowWriter;
  void row(std::uint64_t cell, const sim::Summary& s) override {
    nlohmann::json keys = nlohmann::json::object();
    const auto at = sweep_.coordinates(cell);
    for (std::size_t i = 0; i < at.size(); ++i) keys[sweep_.axes()[i].key] = sweep_.axes()[i].values[at[i]];
    nlohmann::json j = summary_fields(s);
    j["cell"] = cell;
    j["keys"] = std::move(keys);
    out_ << j.dump() << '\n';
  }
};

class TextWriter final : public RowWriter {
 public:
  using RowWriter::RowWriter;
  void header() override {
    for (const auto& a : sweep_.axes()) out_ << fmt::format("{:<{}} ", a.key, width(a));
    out_ << fmt::format("{:>10} {:>7}  {}\n", "MiB/s", "of line", "stalls (> threshold)");
  }
  void row(std::uint64_t cell, const sim::Summary& s) override {
    const auto at = sweep_.coordinates(cell);
    for (std::size_t i = 0; i < at.size(); ++i)
      out_ << fmt::format("{:<{}} ", sweep_.axes()[i].values[at[i]], width(sweep_.axes()[i]));
    out_ << fmt::format("{:>10.4f} {:>7.3f}  {}\n", s.goodput_mib_s,
                        s.ceiling_mib_s > 0 ? s.goodput_mib_s / s.ceiling_mib_s : 0.0, stall_brief(s.stalls));
  }

 private:
  static std::size_t width(const scenario::SweepAxis& a) {
    std::size_t w = a.key.size();
    for (const auto& v : a.values) w = std::max(w, v.size());
    return w;
  }
};

class Progress {
 public:
  Progress(std::ostream& err, bool on, std::uint64_t total)
      : err_(err), on_(on), total_(total), start_(std::chrono::steady_clock::now()) {}
  void update(std::uint64_t done) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done != total_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double eta = done > 0 ? elapsed * static_cast<double>(total_ - done) / static_cast<double>(done) : 0;
    const int filled = static_cast<int>(30 * done / std::max<std::uint64_t>(total_, 1));
    err_ << fmt::format("\r[{:=<{}}{:<{}}] {}/{} cells, {:.0f} s, ETA {:.0f} s ", "", filled, "", 30 - filled,
                        done, total_, elapsed, eta)
         << std::flush;
    if (done == total_) err_ << '\n';
  }

 private:
  std::ostream& err_;
  bool on_;
  std::uint64_t total_;
  std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace

int run_sweep(const SweepRun& r, Io io) {
  const std::uint64_t n = r.sweep.shard_cells(r.shard);
  std::ofstream csv_file;
  std::unique_ptr<RowWriter> csv, main;
  if (!r.csv_path.empty() && r.csv_path != "-") {
    csv_file.open(r.csv_path, std::ios::binary | std::ios::trunc);
    if (!csv_file) return fail(io, "--csv " + r.csv_path + ": cannot create the file", kExitFailure);
    csv = std::make_unique<CsvWriter>(csv_file, r.sweep);
  }
  if (r.csv_path == "-") main = std::make_unique<CsvWriter>(io.out, r.sweep);
  else if (r.json_lines) main = std::make_unique<JsonLinesWriter>(io.out, r.sweep);
  else main = std::make_unique<TextWriter>(io.out, r.sweep);
  std::unique_ptr<report::MapData> map;
  if (!r.plot_path.empty()) {
    auto m = report::MapData::make(r.sweep, r.plot_path);
    if (!m) return fail(io, m.error(), kExitUsage);
    map = std::move(*m);
  }
  for (RowWriter* w : {csv.get(), main.get()})
    if (w != nullptr) w->header();

  // The cells on `jobs` threads, written in order as they come (scenario/runner.h).
  Progress progress(io.err, r.progress, n);
  std::optional<core::Error> error;
  std::uint64_t error_cell = 0;
  scenario::run_ordered<CellResult>(
      n, r.jobs,
      [&r](std::uint64_t k) {
        CellResult res{r.sweep.shard_cell(r.shard, k), {}};
        res.summary = run_cell(r, res.cell);
        return res;
      },
      [&](std::uint64_t k, CellResult&& res) {
        if (!res.summary) {
          error = res.summary.error();
          error_cell = res.cell;
          return false;
        }
        for (RowWriter* w : {csv.get(), main.get()})
          if (w != nullptr) w->row(res.cell, *res.summary);
        if (map) map->add(res.cell, *res.summary);
        progress.update(k + 1);
        return true;
      });
  if (error) {
    std::string where;
    for (const std::string& s : r.sweep.sets(error_cell)) where += (where.empty() ? "" : " ") + s;
    return fail(io, *error, kExitUsage, fmt::format("sweep cell {} ({}): ", error_cell, where));
  }
  if (csv_file && !csv_file.flush()) return fail(io, "--csv " + r.csv_path + ": write error");
  if (map) {
    const std::string title = (r.title.empty() ? r.source : r.title) + (r.shard.count > 1 ? fmt::format(" (shard {}/{})", r.shard.index, r.shard.count) : "");
    if (auto ok = map->render(title); !ok) return fail(io, ok.error(), kExitFailure, "--plot " + r.plot_path + ": ");
  }
  return kExitOk;
}

}  // namespace ackstall::tools
