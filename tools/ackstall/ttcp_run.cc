// ackstall ttcp: ttcp's lines around the ttcp library's transfer (ttcp_run.h).
#include "ttcp_run.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <ostream>
#include <string>

#include "ackstall/core/plural.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/ttcp/transfer.h"
#include "interrupt.h"
#include "ttcp_json.h"

namespace ackstall::tools {
namespace {

void print_interval(std::ostream& out, const char* who, const ttcp::Interval& i) {
  const double s = i.end - i.start;
  fmt::print(out, "{}: {:7.2f}-{:<7.2f} sec {:>12} bytes {:9.3f} MB/s {:>11}\n", who, i.start, i.end,
             i.bytes, s > 0 ? static_cast<double>(i.bytes) / s / 1e6 : 0.0, core::plural(i.stalls, "stall"));
}

void print_summary(std::ostream& out, const char* who, const ttcp::TransferResult& r) {
  const double kbps = r.seconds > 0 ? static_cast<double>(r.bytes) / 1024.0 / r.seconds : 0;
  fmt::print(out, "{}: {} bytes in {:.2f} real seconds = {:.2f} KB/sec +++ ({:.3f} MB/s, {:.3f} MiB/s)\n",
             who, r.bytes, r.seconds, kbps, r.mb_per_s(),
             r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / 1048576.0 : 0.0);
  fmt::print(out, "{}: {} I/O calls, msec/call = {:.2f}, calls/sec = {:.2f}\n", who, r.calls,
             r.calls ? r.seconds * 1000.0 / static_cast<double>(r.calls) : 0.0,
             r.seconds > 0 ? static_cast<double>(r.calls) / r.seconds : 0.0);
}

// The stall line: application calls that took longer than the stall threshold. Under
// --emulate-afd the quota's line above counts its waits instead; the two differ (a send may
// wait more than once, and the last wait, for every ACK before the close, belongs to no send).
void print_stalls(std::ostream& out, const TtcpConfig& cfg, const char* who, const ttcp::TransferResult& r) {
  fmt::print(out, "{}: {} > {} ms, counted per application {} (longest {:.1f} ms)\n", who,
             core::plural(r.stalls, "stall"), cfg.stall_ms, cfg.transmit ? "send" : "read", r.longest_call_ms);
}

// The "chunk=..." line: how the transmitter splits its sends.
void print_setup(std::ostream& out, const char* who, const ttcp::SenderSetup& s) {
  const auto& isb = s.isb_reading;
  const net::NetPolicy chosen{s.policy, s.sndbuf_rule};
  // "isb" names seed with the ideal-backlog rule; any other rule but keep is said beside the cut.
  const bool rule_shown = !chosen.isb() && s.sndbuf_rule != core::SndbufRule::keep;
  fmt::print(out, "{}: chunk={}{} (mss {}, sndbuf {}, base chunk {}){}{}\n", who, net::to_string(chosen),
             rule_shown ? fmt::format(" sndbuf-rule={}", core::to_string(s.sndbuf_rule)) : std::string(), s.mss,
             s.sndbuf, s.base_chunk,
             s.afd_quota ? fmt::format(", emulated AFD quota {}", *s.afd_quota) : std::string(),
             !isb ? std::string()
             : isb->provenance == net::Provenance::measured
                 ? fmt::format(", ideal send backlog {} ({})", isb->value, isb->source)
                 : fmt::format(", ideal send backlog: {}", isb->source));
}

// ttcp's progress lines, as the transfer reaches each step (none with --json).
ttcp::Events text_events(const TtcpConfig& cfg, Io io, const char* who,
                         const std::function<void(std::uint16_t)>& on_listening) {
  ttcp::Events ev;
  ev.listening = [&cfg, io, who, &on_listening](std::uint16_t port) {
    if (!cfg.json) {
      fmt::print(io.out, "{}: buflen={}, nbuf={}, align=16384/0, port={}  tcp\n", who, cfg.buflen,
                 cfg.nbuf, port);
      fmt::print(io.out, "{}: socket\n", who);
      io.out.flush();  // a script waiting for the port (-p 0) reads it now, not at exit
    }
    if (on_listening) on_listening(port);
  };
  if (cfg.json) return ev;
  ev.connected = [&cfg, io, who](const std::string& peer) {
    if (cfg.transmit) {
      fmt::print(io.out, "{}: connect\n", who);
    } else {
      fmt::print(io.out, "{}: accept from {}\n", who, peer);
    }
  };
  ev.nodelay = [io, who] { fmt::print(io.out, "{}: nodelay\n", who); };
  ev.sending = [&cfg, io, who](const ttcp::SenderSetup& s) {
    if (cfg.verbose || cfg.chunk != core::PolicyKind::none || s.afd_quota) print_setup(io.out, who, s);
    if (s.notice) fmt::print(io.out, "{}: note: {}\n", who, *s.notice);
  };
  ev.empty = [io, who](const std::string& peer) {
    fmt::print(io.out, "{}: ignored a connection from {} that sent nothing (a probe?); waiting\n", who, peer);
  };
  ev.interval = [io, who](const ttcp::Interval& i) { print_interval(io.out, who, i); };
  return ev;
}

void print_transmitter_report(const TtcpConfig& cfg, std::ostream& out, const char* who,
                              const ttcp::TransferResult& res) {
  if (res.afd) {
    const auto& a = *res.afd;
    fmt::print(out,
               "{}: emulate-afd quota={}{}: {}, waited {:.3f} s for completions in {}, "
               "{} > {} ms, counted per wait for the quota, the last one for every ACK included "
               "(longest {:.1f} ms)\n",
               who, *cfg.afd_quota,
               a.final_quota != *cfg.afd_quota ? fmt::format(" (SO_SNDBUF raised it to {})", a.final_quota) : "",
               core::plural(a.sends, "send"), std::chrono::duration<double>(a.waited).count(),
               core::plural(a.waits, "wait"), core::plural(a.stalls, "stall"), cfg.stall_ms,
               std::chrono::duration<double, std::milli>(a.longest_wait).count());
  }
  if (cfg.verbose && res.mss) {
    fmt::print(out, "{}: mss {}, timestamps {}\n", who, *res.mss, res.timestamps ? "on" : "off");
  } else if (cfg.verbose) {
    fmt::print(out, "{}: mss and timestamps unknown ({})\n", who, res.tcp_info_error);
  }
}

// One transfer's report (text or --json); the exit code it stands for.
int report_result(const TtcpConfig& cfg, Io report, const char* who, const ttcp::TransferResult& res) {
  if (cfg.json) {
    report.out << ttcp_result_json(cfg, res).dump(2) << '\n';
  } else {
    if (res.interrupted) {
      fmt::print(report.out, "{}: interrupted by {}: the transfer so far\n", who, signal_name(res.interrupted));
    } else if (res.lost) {
      fmt::print(report.out, "{}: connection lost: the transfer so far\n", who);
    }
    if (cfg.transmit) {
      print_transmitter_report(cfg, report.out, who, res);
    } else if (cfg.verify) {
      fmt::print(report.out, "{}: --verify: {} bytes match the pattern\n", who, res.bytes);
    }
    print_stalls(report.out, cfg, who, res);
    print_summary(report.out, who, res);
  }
  report.out.flush();
  // A lost connection: the report above, then the one-line error, exit 1.
  if (res.lost) return fail(report, *res.lost, kExitFailure, std::string(who) + ": ");
  return res.interrupted ? InterruptFlag::exit_code(res.interrupted) : kExitOk;
}

}  // namespace

int run_ttcp(const TtcpConfig& cfg, Io io, const std::function<void(std::uint16_t)>& on_listening,
             ttcp::TransferResult* result) {
  // Without -s the data owns stdout: reports go to stderr, as ttcp prints them.
  const Io report = cfg.source_sink ? io : Io{io.err, io.err, io.in};
  const char* who = cfg.transmit ? "ttcp-t" : "ttcp-r";
  if (cfg.transmit && !cfg.json && (cfg.source_sink || cfg.data_in)) {
    fmt::print(report.out, "{}: buflen={}, nbuf={}, align=16384/0, port={}  tcp  -> {}\n", who,
               cfg.buflen, cfg.nbuf, cfg.port, cfg.host);
    fmt::print(report.out, "{}: socket\n", who);
    report.out.flush();  // a Ctrl-C'd run with stdout in a file still shows what it was doing
  }
  const ttcp::Events events = text_events(cfg, report, who, on_listening);
  if (cfg.forever && !cfg.transmit) {
    int code = kExitOk;
    auto served = ttcp::serve(cfg, events, [&](const core::Result<ttcp::TransferResult>& res) {
      if (!res) {
        fail(report, res.error(), kExitFailure, std::string(who) + ": ");
        return;
      }
      if (result) *result = *res;
      code = report_result(cfg, report, who, *res);
    });
    if (!served) return fail(report, served.error(), kExitFailure, std::string(who) + ": ");
    if (cfg.interrupt && cfg.interrupt->load() != 0) return InterruptFlag::exit_code(cfg.interrupt->load());
    return code;
  }
  auto res = ttcp::run(cfg, events);
  if (!res) return fail(report, res.error(), kExitFailure, std::string(who) + ": ");
  if (result) *result = *res;
  return report_result(cfg, report, who, *res);
}

}  // namespace ackstall::tools
