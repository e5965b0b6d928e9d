#include "sim_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>

#include "ackstall/core/units.h"
#include "ackstall/analysis/sim_explain.h"
#include <ostream>
#include <utility>

namespace ackstall::tools {
namespace {

using sim::StallKind;

const sim::StallTotal* total_of(const sim::StallTotals& t, StallKind kind) { return &stall_total(t, kind); }

// Every stall kind (sim::kStallKinds, in order) with its total.
std::array<std::pair<StallKind, const sim::StallTotal*>, std::size(sim::kStallKinds)> stalls_of(
    const sim::Summary& s) {
  std::array<std::pair<StallKind, const sim::StallTotal*>, std::size(sim::kStallKinds)> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {sim::kStallKinds[i], total_of(s.stalls, sim::kStallKinds[i])};
  return out;
}

std::string title(const SimRun& r) {
  return r.scenario.name.empty() ? r.source : r.scenario.name;
}

}  // namespace

// The total of one kind the simulator marks (sim::kStallKinds).
const sim::StallTotal& stall_total(const sim::StallTotals& t, StallKind kind) { return *t.of(kind); }

double total_time(const sim::StallTotals& t) {
  double s = 0;
  for (StallKind k : sim::kStallKinds) s += stall_total(t, k).time.seconds();
  return s;
}

std::string stall_brief(const sim::StallTotals& t) {
  std::string out;
  for (StallKind k : sim::kStallKinds) {
    const sim::StallTotal& x = stall_total(t, k);
    if (x.count == 0) continue;
    out += fmt::format("{}{} {:.3f} s ({}x)", out.empty() ? "" : "; ", core::label_of(k), x.time.seconds(), x.count);
  }
  return out.empty() ? "none" : out;
}

void print_summary(std::ostream& out, const SimRun& r) {
  const sim::Summary& s = r.summary;
  if (title(r) == r.source)
    fmt::print(out, "scenario   {}\n", r.source);
  else
    fmt::print(out, "scenario   {} ({})\n", title(r), r.source);
  fmt::print(out, "goodput    {:.4f} MiB/s   link ceiling {:.2f} MiB/s", s.goodput_mib_s,
             s.ceiling_mib_s);
  if (r.scenario.seed_mib_s && r.scenario.overrides.empty())
    fmt::print(out, "   seed measured {:g} MiB/s", *r.scenario.seed_mib_s);
  else if (r.scenario.seed_mib_s)
    fmt::print(out, "   (not the seed's row any more: --set {})", r.scenario.overrides.front());
  fmt::print(out, "\n");
  fmt::print(out, "transfer   {} of {} bytes in {:.6f} s{}\n", s.bytes_delivered, s.bytes_requested,
             s.duration.seconds(), s.completed ? "" : "  (INCOMPLETE: time limit reached)");
  const std::int64_t configured = r.scenario.config.sender.send_buffer.size;
  fmt::print(out, "tcp        mss {}, timestamps {}, connected at {:.1f} us, SO_SNDBUF {}{}\n", s.mss,
             s.timestamps ? "on" : "off", s.connected_at.micros(), s.sndbuf,
             s.sndbuf != configured ? fmt::format(" (raised from {} by the policy, KB823764)", configured) : "");
  if (!r.causes.empty()) {
    std::string causes;
    for (const auto& c : r.causes) {
      causes += fmt::format("{}{} {:.1f} %", causes.empty() ? "" : ", ", core::to_string(c.cause), 100 * c.share);
    }
    fmt::print(out, "causes     {} (each moment to one cause, as `ackstall scan` reads a capture at the sender)\n",
               causes);
  }
  if (r.causes_check && r.causes_check->empty())
    fmt::print(out, "check      the capture scanner's reading of the run agrees (analysis/sim_causes.h)\n");
  fmt::print(out, "stalls     {} (waits > {}; the simulator's kinds overlap: a quota wait holds the delayed ACK "
             "that ends it); shorter waits {:.3f} s in all ({})\n",
             stall_brief(s.stalls), core::format_duration_ns(r.scenario.config.stall_threshold.count()),
             total_time(s.short_waits), stall_brief(s.short_waits));
  fmt::print(out, "why        {}\n", analysis::explain(r.scenario.config, s));
  fmt::print(out,
             "segments   data {}, pure ACKs {} (window updates {}, delayed {}), retransmits {}, "
             "RTO {}, drops {}\n",
             s.data_segments, s.pure_acks, s.window_updates, s.delayed_acks, s.retransmits,
             s.rto_fires, s.drops);
  fmt::print(out, "app        send calls {} (would block {}), read calls {}\n", s.send_calls,
             s.would_block, s.read_calls);
  fmt::print(out, "simulator  {} events in {:.3f} s wall\n", s.events, r.wall_seconds);
}

nlohmann::json summary_fields(const sim::Summary& s) {
  nlohmann::json stalls = nlohmann::json::object(), short_waits = nlohmann::json::object();
  for (StallKind k : sim::kStallKinds) {
    const auto& t = stall_total(s.stalls, k);
    const auto& w = stall_total(s.short_waits, k);
    stalls[std::string(core::label_of(k))] = {{"seconds", t.time.seconds()}, {"count", t.count}};
    short_waits[std::string(core::label_of(k))] = {{"seconds", w.time.seconds()}, {"count", w.count}};
  }
  return {
      {"completed", s.completed},
      {"goodput_mib_s", s.goodput_mib_s},
      {"ceiling_mib_s", s.ceiling_mib_s},
      {"bytes_requested", s.bytes_requested},
      {"bytes_delivered", s.bytes_delivered},
      {"duration_s", s.duration.seconds()},
      {"connected_at_s", s.connected_at.seconds()},
      {"mss", s.mss},
      {"timestamps", s.timestamps},
      {"sndbuf", s.sndbuf},
      {"stalls", stalls},
      {"short_waits", short_waits},
      {"data_segments", s.data_segments},
      {"pure_acks", s.pure_acks},
      {"window_updates", s.window_updates},
      {"delayed_acks", s.delayed_acks},
      {"retransmits", s.retransmits},
      {"rto_fires", s.rto_fires},
      {"drops", s.drops},
      {"send_calls", s.send_calls},
      {"would_block", s.would_block},
      {"read_calls", s.read_calls},
      {"events", s.events},
  };
}

nlohmann::json summary_json(const SimRun& r) {
  nlohmann::json j = summary_fields(r.summary);
  j["source"] = r.source;
  j["name"] = r.scenario.name;
  j["seed_row"] = r.scenario.seed_row;
  // The seed's figure only while the run still is the seed's row (no --set changed it).
  const bool seed_row = r.scenario.seed_mib_s && r.scenario.overrides.empty();
  j["seed_mib_s"] = seed_row ? nlohmann::json(*r.scenario.seed_mib_s) : nlohmann::json();
  j["overrides"] = r.scenario.overrides;
  j["calibration"] = r.scenario.calibration;
  j["wall_s"] = r.wall_seconds;
  j["explanation"] = analysis::explain(r.scenario.config, r.summary);
  if (!r.causes.empty()) {
    nlohmann::json causes = nlohmann::json::object();
    for (const auto& c : r.causes) causes[std::string(core::to_string(c.cause))] = static_cast<double>(c.ns) / 1e9;
    j["time_by_cause_s"] = causes;
  }
  if (r.causes_check) j["causes_check"] = r.causes_check->empty() ? "agree" : *r.causes_check;
  return j;
}

void print_table(std::ostream& out, std::span<const SimRun> runs) {
  // the first column: the seed's row where a scenario reproduces one, else its title; as wide
  // as the longest, so that the numbers line up
  auto row_name = [](const SimRun& r) { return r.scenario.seed_row.empty() ? title(r) : r.scenario.seed_row; };
  std::size_t width = 8;
  bool any_seed_row = false;
  for (const SimRun& r : runs) {
    width = std::max(width, row_name(r).size());
    any_seed_row = any_seed_row || !r.scenario.seed_row.empty();
  }
  fmt::print(out, "{:<{}} {:>10} {:>10} {:>8} {:>8}  {}\n", any_seed_row ? "seed row" : "scenario", width,
             "seed MiB/s", "sim MiB/s", "sim/seed", "ceiling", "largest stall (total s, count)");
  for (const SimRun& r : runs) {
    const sim::Summary& s = r.summary;
    std::string seed = "-", ratio = "-";
    if (r.scenario.seed_mib_s && r.scenario.overrides.empty()) {
      seed = fmt::format("{:g}", *r.scenario.seed_mib_s);
      ratio = fmt::format("{:.2f}", s.goodput_mib_s / *r.scenario.seed_mib_s);
    }
    StallKind worst = StallKind::delayed_ack;
    const sim::StallTotal* worst_total = nullptr;
    for (const auto& [kind, total] : stalls_of(s))
      if (worst_total == nullptr || total->time > worst_total->time) {
        worst = kind;
        worst_total = total;
      }
    // A row without a stall says so ("none"), not "delayed-ack 0.000 s (0x)".
    const std::string largest = worst_total == nullptr || worst_total->count == 0
                                    ? std::string("none")
                                    : fmt::format("{} {:.3f} s ({}x)", core::label_of(worst),
                                                  worst_total->time.seconds(), worst_total->count);
    fmt::print(out, "{:<{}} {:>10} {:>10.4f} {:>8} {:>8.2f}  {}{}\n", row_name(r), width, seed, s.goodput_mib_s, ratio,
               s.ceiling_mib_s, largest, s.completed ? "" : "  INCOMPLETE");
  }
}

}  // namespace ackstall::tools
