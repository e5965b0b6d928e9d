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
#include "ackstall/ttcp/interrupt.h"
#include "ackstall/ttcp/report.h"

namespace ackstall::tools {
namespace {

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
    if (cfg.verbose || cfg.chunk != core::PolicyKind::none || s.afd_quota) ttcp::print_setup(io.out, who, s);
    if (s.notice) fmt::print(io.out, "{}: note: {}\n", who, *s.notice);
  };
  ev.empty = [io, who](const std::string& peer) {
    fmt::print(io.out, "{}: ignored a connection from {} that sent nothing (a probe?); waiting\n", who, peer);
  };
  ev.interval = [io, who](const ttcp::Interval& i) { ttcp::print_interval(io.out, who, i); };
  return ev;
}

// One transfer's report (text or --json); the exit code it stands for.
int report_result(const TtcpConfig& cfg, Io report, const char* who, const ttcp::TransferResult& res) {
  if (cfg.json) {
    report.out << ttcp::result_json(cfg, res) << '\n';
  } else {
    ttcp::print_result(report.out, cfg, cfg.verbose, who, res);
  }
  report.out.flush();
  // A lost connection: the report above, then the one-line error, exit 1.
  if (res.lost) return fail(report, *res.lost, kExitFailure, std::string(who) + ": ");
  return res.interrupted ? ttcp::InterruptFlag::exit_code(res.interrupted) : kExitOk;
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
    if (cfg.interrupt && cfg.interrupt->load() != 0) return ttcp::InterruptFlag::exit_code(cfg.interrupt->load());
    return code;
  }
  auto res = ttcp::run(cfg, events);
  if (!res) return fail(report, res.error(), kExitFailure, std::string(who) + ": ");
  if (result) *result = *res;
  return report_result(cfg, report, who, *res);
}

}  // namespace ackstall::tools
