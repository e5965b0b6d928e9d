// ackstall scan: what limits each transfer in captures (pcap::scan_capture), per flow: where the
// time went, the delayed-ACK stalls with their frame numbers, a verdict and the fixes for the
// stacks seen; optionally a simulator scenario.
//
// Exit codes (README): 0 a report; 1 a file that cannot be opened or a capture with no TCP flow
// (nothing to analyse is not success); 2 bad usage or bad input (not a capture, a corrupt record
// or block mid-file — after the report of the records before it —, a bad --filter or --flow).
// A capture cut short is analysed up to the cut and warned about on stderr (exit 0, as tshark).
// Live (-i): 1 when the capture cannot start (no such interface, no permission: one line).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <future>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "choice_option.h"
#include "ackstall/pcap/capture_source.h"
#include "ackstall/pcap/scan_file.h"
#include "app.h"
#include "ackstall/report/progress_line.h"
#include "ackstall/ttcp/interrupt.h"
#include "ackstall/report/gnuplot.h"
#include "ackstall/report/scan_annotate.h"
#include "ackstall/report/scan_compare.h"
#include "ackstall/report/scan_html.h"
#include "ackstall/report/scan_plot.h"
#include "ackstall/report/scan_report.h"
#include "ackstall/analysis/capture_scenario.h"
#include "stall_threshold_option.h"
#include "unsigned_option.h"

namespace ackstall::tools {
namespace {

struct ScanCli {
  std::vector<std::string> files;
  std::string iface;      // -i: a live capture
  double duration_s = 0;  // --duration (0: until Ctrl-C)
  core::StallThreshold threshold = core::kDefaultStallThreshold;
  std::vector<std::string> flows;
  std::string bpf;
  std::string reader = "own";  // --reader
  bool json = false;
  std::size_t max_stalls = 20;
  std::size_t top = 20;  // --top
  bool all = false;      // --all
  std::string emit_scenario;
  std::string plot_path;    // --plot
  std::string plot_window;  // --plot-window
  std::string annotate;     // --annotate
  bool merge = false;       // --merge
  bool compare = false;     // --compare
  std::string report;       // --report
  unsigned jobs = 1;        // -j
};

// What every scan takes from the flags: the threshold, --flow, --filter, --reader.
pcap::ScanRequest request_of(const ScanCli& o) {
  pcap::ScanRequest req;
  req.options.threshold = o.threshold;
  for (const auto& f : o.flows) req.flows.push_back(*pcap::parse_flow_filter(f));  // validated at parse time
  req.bpf = o.bpf;
  req.reader = o.reader == "libpcap" ? pcap::CaptureSource::Reader::libpcap : pcap::CaptureSource::Reader::own;
  return req;
}

// --compare BEFORE AFTER: both scanned, their services matched (pcap/compare.h). Exit 1 when
// nothing matched (nothing to compare is not success, as a capture with no TCP flow).
int run_compare(const ScanCli& o, Io io) {
  if (o.files.size() != 2 || !o.iface.empty()) {
    return fail(io, "scan --compare: give two capture files, BEFORE and AFTER", kExitUsage);
  }
  if (o.merge || !o.plot_path.empty() || !o.annotate.empty() || !o.emit_scenario.empty() || !o.report.empty()) {
    return fail(io, "scan --compare: --merge, --plot, --annotate, --report and --emit-scenario read one capture",
                kExitUsage);
  }
  pcap::ScanRequest req = request_of(o);
  req.options.keep_stalls = 0;  // the comparison lists no stall
  std::vector<pcap::FileScan> sides;
  for (const std::string& f : o.files) {
    auto s = pcap::scan_capture(f, req);
    if (!s) return fail(io, s.error(), s.error().code != 0 ? kExitFailure : kExitUsage);
    if (s->error) return fail(io, *s->error, kExitUsage);
    sides.push_back(std::move(*s));
  }
  const pcap::Comparison c = pcap::compare(sides[0].flows, sides[1].flows);
  if (o.json) {
    report::print_comparison_json(sides[0], sides[1], c, io.out);
  } else {
    report::print_comparison_text(sides[0], sides[1], c, io.out);
  }
  return c.matched.empty() ? kExitFailure : kExitOk;
}

int run_scan(const ScanCli& o, Io io) {
  if (o.compare) return run_compare(o, io);
  if (o.files.empty() && o.iface.empty()) {
    return fail(io, "scan: no capture given: name capture files ('-' for stdin), or -i INTERFACE for a live capture",
                kExitUsage);
  }
  if (!o.files.empty() && !o.iface.empty()) {
    return fail(io, "scan: give capture files or -i INTERFACE (a live capture), not both", kExitUsage);
  }
  if (o.duration_s > 0 && o.iface.empty()) return fail(io, "scan: --duration is for a live capture (-i)", kExitUsage);
  report::PlotWindow window;
  const bool any_read_once = std::ranges::any_of(o.files, &pcap::CaptureSource::reads_once);
  if (o.merge && (!o.iface.empty() || any_read_once)) {
    return fail(io, "scan: --merge reads capture files (not stdin or a pipe, not -i)", kExitUsage);
  }
  if (!o.plot_path.empty()) {
    if (o.files.size() != 1 || any_read_once) {
      return fail(io, "scan: --plot draws one capture file (read twice: not stdin or a pipe, not -i)", kExitUsage);
    }
    if (auto t = report::terminal_for(o.plot_path, 1, 1); !t) return fail(io, t.error(), kExitUsage, "--plot ");
  }
  if (!o.report.empty() && (o.files.empty() || (o.files.size() > 1 && !o.merge) || any_read_once)) {
    return fail(io, "scan: --report describes one capture, a file or --merge's files (read twice: not stdin or a pipe, not -i)",
                kExitUsage);
  }
  if (!o.annotate.empty() && (o.files.size() != 1 || any_read_once)) {
    return fail(io, "scan: --annotate writes back one capture file (read twice: not stdin or a pipe, not -i; for a "
                    "ring buffer's "
                    "files, annotate each, or join them with mergecap first)",
                kExitUsage);
  }
  if (!o.plot_window.empty()) {
    if (o.plot_path.empty()) return fail(io, "scan: --plot-window needs --plot", kExitUsage);
    auto w = report::parse_plot_window(o.plot_window);
    if (!w) return fail(io, w.error(), kExitUsage);
    window = *w;
  }
  pcap::ScanRequest req = request_of(o);
  // Text lists --max-stalls per flow: keep no more (memory flat in capture length); JSON and
  // --plot need every stall.
  if (!o.json && o.plot_path.empty() && o.annotate.empty()) req.options.keep_stalls = o.max_stalls;
  // JSON lists every stall: past the first 8,192 of a direction they wait on disk (memory flat
  // in capture length; 65,536 in memory cost 3,000 page faults more than text on the 91,000-stall
  // capture, 8,192 cost 300: docs/BENCHMARKS.md "scan vs tshark").
  if (o.json && o.plot_path.empty() && o.annotate.empty()) {
    req.options.keep_stalls = 8192;
    req.options.spill_stalls = true;
  }
  req.options.cause_timeline = !o.plot_path.empty() || !o.report.empty();  // the graphs' bands
  const report::ScanPrint print{o.threshold, !o.flows.empty() || !o.bpf.empty(), o.max_stalls, o.top, o.all};
  int code = kExitOk;
  std::string first_error;
  const pcap::FileScan* emitted_from = nullptr;
  std::vector<pcap::FileScan> scans;
  const std::vector<std::string> sources = o.iface.empty() ? o.files : std::vector<std::string>{o.iface};
  scans.reserve(sources.size());
  // Files: scanned -j at a time (each on its own thread), reported in the order given.
  std::deque<std::future<pcap::Result<pcap::FileScan>>> ahead;
  std::size_t next_file = 0;
  const auto launch = [&] {
    while (o.iface.empty() && !o.merge && next_file < sources.size() && ahead.size() < std::max(1u, o.jobs)) {
      ahead.push_back(std::async(o.jobs > 1 ? std::launch::async : std::launch::deferred,
                                 [&req, f = sources[next_file]] { return pcap::scan_capture(f, req); }));
      ++next_file;
    }
  };
  const std::vector<std::string> runs = o.merge ? std::vector<std::string>{"merged"} : sources;
  // On a terminal, a capture that takes more than a second shows how far it has come (one file
  // at a time: with -j the files' lines would fight over one line).
  report::ProgressLine progress(o.iface.empty() && o.jobs <= 1);
  std::string scanning;
  if (progress.enabled()) {
    req.on_progress = [&](const pcap::ScanProgress& p) {
      progress.update(fmt::format("scan: {}: {} records, {:.1f} s of capture", scanning, p.records,
                                  static_cast<double>(p.last_ns - p.first_ns) / 1e9));
    };
  }
  for (std::size_t run = 0; run < runs.size(); ++run) {
    pcap::Result<pcap::FileScan> scan = pcap::make_error("not run");
    scanning = o.merge ? fmt::format("{} files merged", sources.size()) : runs[run];
    if (o.merge) {
      scan = pcap::scan_merged(sources, req);
      progress.clear();
    } else if (o.iface.empty()) {
      launch();
      scan = ahead.front().get();
      ahead.pop_front();
      progress.clear();
    } else {
      // Live: each stall as it is found (text), the report at the end of --duration or on
      // Ctrl-C / SIGTERM (interrupt.h), which end a live capture normally.
      const ttcp::InterruptFlag interrupt;
      pcap::LiveRequest live{.scan = req, .iface = o.iface, .duration_s = o.duration_s, .stop = &interrupt.flag(), .on_start = {}};
      if (!o.json) live.scan.options.on_stall = [&io](const pcap::SocketAddr& s, const pcap::SocketAddr& r,
                                                      const pcap::Stall& st) { report::print_live_stall(s, r, st, io.out); };
      if (!o.json) {
        live.on_start = [&] {
          fmt::print(io.out, "capturing on {}{} ({}); stalls as they are found:\n", o.iface,
                     o.bpf.empty() ? "" : " with filter '" + o.bpf + "'",
                     o.duration_s > 0 ? fmt::format("for {} s, or until Ctrl-C", o.duration_s) : "until Ctrl-C");
          io.out.flush();
        };
      }
      scan = pcap::scan_live(live);
      if (scan && !o.json) io.out << '\n';
    }
    if (!scan) {
      // A file that cannot be opened is a runtime failure; one that is not a capture, or a bad
      // --filter, is bad input. Each file is reported on its own: the rest are still scanned,
      // and the exit code is the worst.
      const int c = scan.error().code != 0 || !o.iface.empty() ? kExitFailure : kExitUsage;
      const std::string where = o.iface.empty() ? "" : "scan -i ";  // the library names the interface
      if (runs.size() == 1) return fail(io, scan.error(), c, where);
      io.err << "ackstall: " << where << scan.error().message() << '\n';
      code = std::max(code, c);
      continue;
    }
    scans.push_back(std::move(*scan));
    const pcap::FileScan& s = scans.back();
    if (!o.json) {
      if (scans.size() > 1) io.out << '\n';
      report::print_scan_text(print, s, io.out);
    }
    if (s.cut_short) io.err << "ackstall: warning: " << *s.cut_short << '\n';
    if (s.capture_drops.value_or(0) > 0) {
      io.err << fmt::format("ackstall: warning: {}: the capturing system dropped {} packet{} (pcapng statistics): "
                            "figures around them are partial\n", s.name, *s.capture_drops,
                            *s.capture_drops == 1 ? "" : "s");
    }
    if (s.stats && s.stats->dropped + s.stats->if_dropped > 0) {
      io.err << fmt::format("ackstall: warning: {}: libpcap and the interface dropped {} packets during the "
                            "capture: figures around them are partial\n", s.name,
                            s.stats->dropped + s.stats->if_dropped);
    }
    if (s.syn_options_cut > 0) {
      // Window scaling (and the MSS, timestamps) live only in the SYN's options (RFC 7323 §2.2).
      io.err << fmt::format("ackstall: warning: {}: {} SYN(s) had their TCP options cut by the capture's snaplen ({} "
                            "bytes): window scaling unknown, windows read unscaled (capture with -s 128 or more)\n",
                            s.name, s.syn_options_cut, s.syn_options_cut_snaplen);
    }
    if (s.error) {
      code = kExitUsage;
      const std::string e = s.error->message() + fmt::format("; the {} records before it were analysed", s.records);
      if (first_error.empty()) first_error = e; else io.err << "ackstall: " << e << '\n';
    } else if (s.flows.empty()) {
      code = std::max(code, kExitFailure);
      const std::string held = report::skipped_summary(s);
      const std::string e = fmt::format("{}: no TCP flow{}: {}", s.name,
                                print.flow_filtered ? " matches --flow/--filter" : "",
                                held.empty() ? fmt::format("{} records", s.records)
                                             : fmt::format("{} records held {}", s.records, held));
      if (first_error.empty()) first_error = e; else io.err << "ackstall: " << e << '\n';
    } else if (emitted_from == nullptr) {
      emitted_from = &s;
    }
  }
  if (o.json) {
    std::vector<const pcap::FileScan*> done;
    for (const auto& s : scans) done.push_back(&s);
    report::write_scan_json(print, done, io.out);
  }
  if (!o.emit_scenario.empty() && emitted_from != nullptr) {
    auto written = analysis::write_scan_scenario(*emitted_from, o.emit_scenario);
    if (!written) return fail(io, written.error());
    if (!o.json) io.out << "\nscenario written to " << o.emit_scenario << " (" << *written << ")\n";
    std::ostream& notes = o.json ? io.err : io.out;
    const std::string_view lead = o.json ? "ackstall: note: " : "note: ";
    for (const std::string& c : analysis::scenario_caveats(*emitted_from)) notes << lead << c << '\n';
    // The replay beside the capture; a caveat past 15 % (the scenario's inferences are then
    // too weak to stand for the capture).
    if (auto replay = analysis::replay_scan_scenario(*emitted_from); replay) {
      notes << lead << fmt::format("replayed in the simulator: {:.3f} MiB/s, the capture {:.3f} MiB/s ({:+.0f} %); "
                                   "with robust chunking the simulator predicts {:.3f} MiB/s\n",
                                   replay->replay_mib_s, replay->capture_mib_s, 100 * replay->deviation,
                                   replay->robust_mib_s);
      if (std::abs(replay->deviation) > 0.15) {
        const bool named = !analysis::scenario_caveats(*emitted_from).empty();
        notes << lead << "the replay is off by more than 15 %: the scenario does not reproduce this capture; "
              << (named ? "the notes above name what it infers weakly here"
                        : "one of its inferences is too weak here (the link rate from segment spacing, the in-flight "
                          "limit as the quota, the receiver's profile from its ACK timer)")
              << ", so read its predictions as trends, not figures\n";
      }
    } else {
      notes << lead << "the scenario could not be replayed: " << replay.error().message() << '\n';
    }
  }
  if (!o.plot_path.empty() && emitted_from != nullptr) {
    const pcap::DirectionReport* d = pcap::busiest_direction(*emitted_from);
    if (d == nullptr) return fail(io, emitted_from->name + ": no flow carried data: nothing to plot");
    if (auto ok = report::plot_capture(o.files[0], o.bpf, *emitted_from, *d, o.plot_path, window); !ok) return fail(io, ok.error());
    if (!o.json) {
      fmt::print(io.out, "\ntime-sequence graph of {} -> {} written to {}\n", pcap::format_socket_addr(d->sender),
                 pcap::format_socket_addr(d->receiver), o.plot_path);
    }
  }
  if (!o.report.empty() && emitted_from != nullptr) {
    auto n = report::write_html_report(o.files, o.bpf, *emitted_from, o.top, o.all, o.threshold, o.report);
    if (!n) return fail(io, n.error(), kExitFailure, "--report: ");
    if (!o.json) fmt::print(io.out, "\nreport written to {} ({} bytes; one file, opens offline)\n", o.report, *n);
  }
  if (!o.annotate.empty() && emitted_from != nullptr) {
    auto n = report::annotate_capture(o.files[0], *emitted_from, o.annotate);
    if (!n) return fail(io, n.error(), kExitFailure, "--annotate: ");
    if (!o.json) {
      fmt::print(io.out, "\n{} written with {} commented frames (Wireshark: frame.comment contains \"ackstall\")\n",
                 o.annotate, *n);
    }
  }
  if (code != kExitOk) return first_error.empty() ? code : fail(io, first_error, code);
  return kExitOk;
}

}  // namespace

void add_scan_command(CLI::App& parent, Action& selected) {
  auto opt = std::make_shared<ScanCli>();
  CLI::App* cmd = parent.add_subcommand(
      "scan", "Find delayed-ACK stalls in captures: per flow, each stall with its frames, a diagnosis and the fix");
  cmd->add_option("files", opt->files,
                  "capture files (pcap or pcapng, also gzip- or xz-compressed; '-' for stdin, or a pipe such as "
                  "<(...); each reported on its own, a file that fails does not stop the others). Links: Ethernet (802.1Q), Linux SLL/SLL2, raw IP, null loopback; IPv4 and IPv6");
  cmd->add_option("-i,--interface", opt->iface,
                  "capture live on this interface (root or CAP_NET_RAW): each stall printed as it is found, "
                  "the report at the end of --duration or on Ctrl-C, with libpcap's drop counters");
  cmd->add_option("--duration", opt->duration_s, "-i: capture this many seconds (default: until Ctrl-C)")
      ->check(CLI::Range(0.001, 86400.0 * 365));
  add_stall_threshold_option(
      *cmd, [opt](core::StallThreshold t) { opt->threshold = t; },
      "an idle sender waiting this long beyond the path's round trip for an ACK is a stall", "--threshold-ms",
      std::int64_t{3600} * 1'000'000'000);
  cmd->add_option("--flow", opt->flows,
                  "only flows with this endpoint: ADDR, ADDR:PORT, [V6ADDR]:PORT, :PORT or "
                  "PATTERN-PATTERN (repeatable; any may match)")
      ->check([](const std::string& v) {
        auto f = pcap::parse_flow_filter(v);
        return f ? std::string() : f.error().message();
      });
  cmd->add_option("--filter", opt->bpf,
                  "libpcap filter expression as in tcpdump (e.g. 'tcp port 5001'); frame numbers "
                  "still count every record")
      ->check([](const std::string& v) {
        auto ok = pcap::check_bpf(v);
        return ok ? std::string() : ok.error().message();
      });
  cmd->add_option("--reader", opt->reader,
                  "who reads capture files: own (default: the project's reader, faster) or libpcap (its "
                  "savefile reader, slower; for comparison)")
      ->check(one_of({"own", "libpcap"}));
  cmd->add_option("--max-stalls", opt->max_stalls, "stalls listed per flow in text output (default 20)")
      ->check(not_negative("a count"));
  cmd->add_option("--report", opt->report,
                  "write one self-contained HTML page (triage table, each problem connection's time-sequence graph "
                  "with cause bands, evidence and fixes) to FILE");
  cmd->add_flag("--compare", opt->compare,
                "two captures, BEFORE and AFTER a change: match their connections by endpoints and service port, "
                "and show per cause the time before and after, goodput, and whether the problem is gone");
  cmd->add_option("--top", opt->top,
                  "a capture of several connections: rows of the triage table, and at most as many full reports "
                  "of those with a problem (default 20)")
      ->check(not_negative("a count"))
      ->check(CLI::Range(std::size_t{1}, std::numeric_limits<std::size_t>::max()));
  cmd->add_flag("--all", opt->all, "every connection in the triage table and every connection's full report");
  cmd->add_flag("--json", opt->json, "print JSON (every stall) instead of text");
  cmd->add_option("--plot", opt->plot_path,
                  "draw the time-sequence graph of the busiest direction (data, cumulative ACK; below it where "
                  "the time went, a band per cause) to FILE: .png, .svg or .pdf (gnuplot)");
  cmd->add_option("--plot-window", opt->plot_window, "--plot only this time span: A..B (e.g. 0.5s..1s), seconds "
                  "since the capture's first record");
  cmd->add_flag("--merge", opt->merge,
                "read the files as one capture (a ring buffer, dumpcap -b): in the order of their first "
                "records' times, flows spanning files, frame numbers counted on across them");
  cmd->add_option("-j,--jobs", opt->jobs, "scan this many files at once (default 1; reported in the order given)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--annotate", opt->annotate,
                  "write the capture back to FILE (pcapng) with a comment on each stall's waiting and releasing "
                  "frame and each direction's verdict on its first segment: Wireshark shows them as frame.comment");
  cmd->add_option("--emit-scenario", opt->emit_scenario,
                  "write a simulator scenario (TOML) built from the first data flow's figures; "
                  "run it with `ackstall sim FILE`");
  cmd->callback([opt, &selected] {
    selected = [opt](Io io) { return run_scan(*opt, io); };
  });
}

}  // namespace ackstall::tools
