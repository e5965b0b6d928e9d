// ackstall watch: what limits each TCP connection of this host now, from the kernel's own
// accounting (inet_diag: the ackstall::live library), without a capture. Parse and print only.
#include <time.h>
#include <unistd.h>

#include <iostream>
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <unordered_map>

#include "ackstall/core/units.h"
#include "ackstall/live/report.h"
#include "ackstall/live/sock_diag.h"
#include "ackstall/live/trace_instance.h"
#include "ackstall/ttcp/interrupt.h"
#include "app.h"

namespace ackstall::tools {
namespace {

struct WatchCli {
  std::vector<std::string> flows;
  std::vector<std::uint16_t> ports;
  std::string interval = "100ms", duration, cgroup, tracefs;
  std::size_t rows = 20;
  bool json = false, events = false;
};

// CLI11 check: a duration in core's grammar ("200ms"), positive.
std::string check_duration(const std::string& v) {
  const auto ns = core::parse_duration_ns(v);
  if (!ns) return ns.error().message();
  return *ns > 0 ? std::string() : "must be above 0";
}

void sleep_until(std::int64_t at_ns) {
  const timespec ts{static_cast<time_t>(at_ns / 1'000'000'000), static_cast<long>(at_ns % 1'000'000'000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);  // EINTR on Ctrl-C: the loop looks
}

core::Result<void> feed_events(live::TraceInstance& trace, live::StallDetector& stalls) {
  auto events = trace.drain();
  if (!events) return tl::unexpected(events.error());
  for (const auto& e : *events) stalls.feed(e);
  return {};
}

int run_watch(const WatchCli& o, Io io) {
  live::SampleFilter filter;
  for (const auto& f : o.flows) filter.endpoints.push_back(*live::parse_endpoint_filter(f));
  for (const std::uint16_t p : o.ports) filter.endpoints.push_back({{}, p});
  if (!o.cgroup.empty()) {
    auto id = live::cgroup_id(o.cgroup);
    if (!id) return fail(io, id.error(), kExitUsage, "watch: ");
    filter.cgroup = *id;
  }
  const std::int64_t interval = *core::parse_duration_ns(o.interval);
  const std::int64_t duration = o.duration.empty() ? 0 : *core::parse_duration_ns(o.duration);
  auto diag = live::SockDiag::open();
  if (!diag) return fail(io, diag.error(), kExitFailure, "watch: ");
  const bool top = !o.json && &io.out == &std::cout && isatty(STDOUT_FILENO);
  const ttcp::InterruptFlag interrupt;  // before the instance: Ctrl-C ends the loop, the instance goes
  std::optional<live::TraceInstance> trace;
  live::StallDetector stalls(core::kDefaultStallThreshold);
  std::vector<std::string> recent;  // the last stalls, under the table
  if (o.events) {
    // The kernel filters by port; an endpoint without one (an address) takes every TCP socket.
    std::vector<std::uint16_t> ports;
    bool any_port = false;
    for (const auto& f : filter.endpoints) f.port ? ports.push_back(*f.port) : void(any_port = true);
    if (any_port) ports.clear();
    std::vector<std::string> notes;
    auto t = live::TraceInstance::create(ports, notes, o.tracefs);
    for (const auto& n : notes) io.err << "ackstall: watch --events: " << n << '\n';
    // Without the events (no root, no tracefs) the sampling still works: one line, then on.
    if (t) {
      trace.emplace(std::move(*t));
    } else {
      io.err << "ackstall: watch --events: " << t.error().message() << "; sampling only\n";
    }
  }
  live::Tracker tracker(trace.has_value());
  const std::int64_t start = live::monotonic_ns();
  using PerSocket = std::unordered_map<std::string, std::int64_t>;  // per "local remote"
  // The events' stalls and recoveries given out since the last call (printed as they come).
  const auto take_events = [&](PerSocket& stall_ns, PerSocket& loss_ns) {
    for (const auto& st : stalls.take()) {
      if (st.cause == core::LimitCause::delayed_ack) stall_ns[live::events_key(st.local, st.remote)] += st.wait_ns - st.path_ns;
      const double at = static_cast<double>(static_cast<std::int64_t>(st.ts_ns) - start) / 1e9;
      if (o.json) io.out << live::stall_json(st, at);
      recent.push_back(live::stall_line(st, at));
      if (!o.json && !top) io.out << recent.back();
    }
    if (recent.size() > 5) recent.erase(recent.begin(), recent.end() - 5);
    // Recoveries timed up to where the last drain gave the events out, not past what is held.
    const auto now = static_cast<std::uint64_t>(std::max<std::int64_t>(trace->released_until_ns(), 0));
    for (const auto& r : stalls.take_recoveries(now)) loss_ns[live::events_key(r.local, r.remote)] += r.duration_ns;
  };
  for (std::int64_t next = start, round = 0;; ++round) {
    auto samples = diag->sample(filter);
    if (!samples) return fail(io, samples.error(), kExitFailure, "watch: ");
    const double t = static_cast<double>(live::monotonic_ns() - start) / 1e9;
    PerSocket stall_ns, loss_ns;
    if (trace) {
      if (auto ok = feed_events(*trace, stalls); !ok) return fail(io, ok.error(), kExitFailure, "watch --events: ");
      take_events(stall_ns, loss_ns);
    }
    const auto rows = tracker.update(std::move(*samples), stall_ns, loss_ns);
    if (round > 0 && o.json) {
      for (const auto& r : rows) io.out << live::json_line(r, t);
    } else if (round > 0) {
      io.out << (top ? "\x1b[H\x1b[2J" : "\n") << live::table(rows, o.rows, t, tracker.watched(), diag->skipped());
      if (top && !recent.empty()) io.out << "last delayed-ACK stalls (--events):\n";
      if (top) for (const auto& line : recent) io.out << line;
    }
    io.out.flush();
    next += interval;
    if (duration > 0 && next - start > duration) break;
    // --events: the per-CPU buffers drained every 10 ms in between, so that they do not overrun.
    while (interrupt.flag().load() == 0 && live::monotonic_ns() < next) {
      sleep_until(trace ? std::min(next, live::monotonic_ns() + 10'000'000) : next);
      if (trace && !feed_events(*trace, stalls)) break;
    }
    if (interrupt.flag().load() != 0) break;
  }
  if (trace) {
    // The events held back (kHoldBackNs) and those since the last round: one more round, not
    // shown, so that the summary has them (Ctrl-C and --duration alike).
    sleep_until(live::monotonic_ns() + live::TraceInstance::kHoldBackNs);
    if (auto samples = diag->sample(filter); samples && feed_events(*trace, stalls)) {
      PerSocket stall_ns, loss_ns;
      take_events(stall_ns, loss_ns);
      tracker.update(std::move(*samples), stall_ns, loss_ns);
    }
  }
  const double watched = static_cast<double>(live::monotonic_ns() - start) / 1e9;
  const auto summary = tracker.summary();
  if (o.json) {
    for (const auto& r : summary) io.out << live::json_line(r, watched, true);
  } else {
    io.out << '\n' << live::summary_text(summary, watched);
  }
  if (trace) {
    const auto c = trace->counts();
    io.out << fmt::format(fmt::runtime(o.json ? "{{\"event\": \"trace_counts\", \"records\": {}, \"acks\": {}, \"sends\": {}, "
                                   "\"overrun\": {}, \"dropped\": {}, \"missed_pages\": {}}}\n"
                                 : "events: {} records read, {} ACKs and {} sends of watched sockets; lost: {} overrun, {} "
                                   "dropped, {} pages with missed events\n"),
                          c.records, stalls.acks(), stalls.sends(), c.overrun, c.dropped, c.missed_pages);
  }
  const int sig = interrupt.flag().load();
  return sig ? ttcp::InterruptFlag::exit_code(sig) : kExitOk;
}

}  // namespace

void add_watch_command(CLI::App& parent, Action& selected) {
  auto o = std::make_shared<WatchCli>();
  CLI::App* cmd = parent.add_subcommand(
      "watch", "What limits each TCP connection of this host now, from the kernel's accounting (no capture, no "
               "root): a live table, busiest first, or --json lines; the summary on Ctrl-C or after --duration");
  cmd->add_option("--flow", o->flows, "only connections with this endpoint: ADDR, ADDR:PORT, [V6ADDR]:PORT or :PORT "
                                      "(repeatable; any may match)")
      ->check([](const std::string& v) {
        auto f = live::parse_endpoint_filter(v);
        return f ? std::string() : f.error().message();
      });
  cmd->add_option("-p,--port", o->ports, "only connections with this port at either end (repeatable)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--cgroup", o->cgroup, "only the sockets of this cgroup v2 directory (absolute, or relative to "
                                         "the cgroup2 mount; Linux 5.9+; --events still filters by port only)");
  cmd->add_option("--interval", o->interval, "time between samples (default 100ms)")->check(check_duration);
  cmd->add_option("--duration", o->duration, "stop after this long (default: until Ctrl-C)")->check(check_duration);
  cmd->add_option("--rows", o->rows, "connections shown in the table (default 20)")->check(CLI::Range(1, 100000));
  cmd->add_flag("--events", o->events, "root: also the kernel's TCP tracepoints (a tracefs instance of its own, "
                                       "removed on exit): each delayed-ACK stall as it happens, with the send behind it");
  cmd->add_option("--tracefs", o->tracefs, "with --events: the tracefs mount to use (default /sys/kernel/tracing, "
                                           "mounted if absent, else /sys/kernel/debug/tracing)");
  cmd->add_flag("--json", o->json, "one JSON object per connection and interval (fields: docs/GUIDE.md)");
  cmd->callback([o, &selected] { selected = [o](Io io) { return run_watch(*o, io); }; });
}

}  // namespace ackstall::tools
