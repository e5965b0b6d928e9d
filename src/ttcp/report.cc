// ackstall ttcp's lines and --json (ackstall/ttcp/report.h).
#include "ackstall/ttcp/report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "ackstall/core/plural.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/ttcp/interrupt.h"

namespace ackstall::ttcp {
namespace {

void print_summary(std::ostream& out, std::string_view who, const TransferResult& r) {
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
void print_stalls(std::ostream& out, const Config& cfg, std::string_view who, const TransferResult& r) {
  fmt::print(out, "{}: {} > {} ms, counted per application {} (longest {:.1f} ms)\n", who,
             core::plural(r.stalls, "stall"), core::stall_threshold_ms(cfg.stall_threshold), cfg.transmit ? "send" : "read", r.longest_call_ms);
}

void print_transmitter_report(const Config& cfg, bool verbose, std::ostream& out, std::string_view who,
                              const TransferResult& res) {
  if (res.afd) {
    const auto& a = *res.afd;
    fmt::print(out,
               "{}: emulate-afd quota={}{}: {}, waited {:.3f} s for completions in {}, "
               "{} > {} ms, counted per wait for the quota, the last one for every ACK included "
               "(longest {:.1f} ms)\n",
               who, *cfg.afd_quota,
               a.final_quota != *cfg.afd_quota ? fmt::format(" (SO_SNDBUF raised it to {})", a.final_quota) : "",
               core::plural(a.sends, "send"), std::chrono::duration<double>(a.waited).count(),
               core::plural(a.waits, "wait"), core::plural(a.stalls, "stall"), core::stall_threshold_ms(cfg.stall_threshold),
               std::chrono::duration<double, std::milli>(a.longest_wait).count());
  }
  if (verbose && res.mss) {
    fmt::print(out, "{}: mss {}, timestamps {}\n", who, *res.mss, res.timestamps ? "on" : "off");
  } else if (verbose) {
    fmt::print(out, "{}: mss and timestamps unknown ({})\n", who, res.tcp_info_error);
  }
}

nlohmann::json sum_json(double seconds, std::uint64_t bytes, double start = 0) {
  return {{"start", start},
          {"end", start + seconds},
          {"seconds", seconds},
          {"bytes", bytes},
          {"bits_per_second", seconds > 0 ? static_cast<double>(bytes) * 8 / seconds : 0.0}};
}

}  // namespace

void print_interval(std::ostream& out, std::string_view who, const Interval& i) {
  const double s = i.end - i.start;
  fmt::print(out, "{}: {:7.2f}-{:<7.2f} sec {:>12} bytes {:9.3f} MB/s {:>11}\n", who, i.start, i.end,
             i.bytes, s > 0 ? static_cast<double>(i.bytes) / s / 1e6 : 0.0, core::plural(i.stalls, "stall"));
}

void print_setup(std::ostream& out, std::string_view who, const SenderSetup& s) {
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

void print_result(std::ostream& out, const Config& cfg, bool verbose, std::string_view who, const TransferResult& r) {
  if (r.interrupted) {
    fmt::print(out, "{}: interrupted by {}: the transfer so far\n", who, signal_name(r.interrupted));
  } else if (r.lost) {
    fmt::print(out, "{}: connection lost: the transfer so far\n", who);
  }
  if (cfg.transmit) {
    print_transmitter_report(cfg, verbose, out, who, r);
  } else if (cfg.verify) {
    fmt::print(out, "{}: --verify: {} bytes match the pattern\n", who, r.bytes);
  }
  print_stalls(out, cfg, who, r);
  print_summary(out, who, r);
}

std::string result_json(const Config& cfg, const TransferResult& r) {
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& i : r.intervals) {
    auto sum = sum_json(i.end - i.start, i.bytes, i.start);
    sum["stalls"] = i.stalls;
    intervals.push_back({{"sum", sum}});
  }
  nlohmann::json j = {
      {"start",
       {{"version", "ackstall ttcp"},
        {"connected", {{{"local", r.local}, {"remote", r.remote}}}},
        {"test_start",
         {{"protocol", "TCP"},
          {"role", cfg.transmit ? "transmitter" : "receiver"},
          {"blksize", cfg.buflen},
          {"num_buffers", cfg.nbuf_set ? nlohmann::json(cfg.nbuf) : nlohmann::json(nullptr)},
          {"duration", cfg.seconds},
          {"nodelay", cfg.nodelay},
          {"sock_bufsize", cfg.sockbuf ? nlohmann::json(*cfg.sockbuf) : nlohmann::json(nullptr)},
          {"chunk", std::string(net::to_string(net::NetPolicy{cfg.chunk, cfg.sndbuf_rule}))},
          {"sndbuf_rule", std::string(core::to_string(cfg.sndbuf_rule))},
          {"emulate_afd", cfg.afd_quota ? nlohmann::json(*cfg.afd_quota) : nlohmann::json(nullptr)},
          {"ack_mode", std::string(to_string(cfg.ack_mode))},
          {"verify", cfg.verify}}}}},
      {"intervals", intervals},
      {"end", {{cfg.transmit ? "sum_sent" : "sum_received", sum_json(r.seconds, r.bytes)},
               {"io_calls", r.calls},
               {"stalls", {{"count", r.stalls},
                           {"threshold_ms", core::stall_threshold_ms(cfg.stall_threshold)},
                           {"longest_call_ms", r.longest_call_ms}}},
               {"interrupted", r.interrupted ? nlohmann::json(signal_name(r.interrupted)) : nlohmann::json(nullptr)}}}};
  if (r.lost) j["error"] = r.lost->message();  // iperf3 -J's key: the transfer ended early
  if (cfg.transmit) {  // null where the OS does not report them (tcp_info_error says why)
    j["end"]["tcp_mss"] = r.mss ? nlohmann::json(*r.mss) : nlohmann::json(nullptr);
    j["end"]["timestamps"] = r.mss ? nlohmann::json(r.timestamps) : nlohmann::json(nullptr);
    if (!r.mss) j["end"]["tcp_info_error"] = r.tcp_info_error;
  }
  if (r.isb) {
    j["end"]["isb"] = {{"value", r.isb->value},
                       {"provenance", std::string(net::to_string(r.isb->provenance))},
                       {"source", r.isb->source}};
  }
  if (r.afd) {
    const auto& a = *r.afd;
    j["end"]["afd"] = {{"quota", *cfg.afd_quota},
                       {"final_quota", a.final_quota},
                       {"sends", a.sends},
                       {"would_blocks", a.would_blocks},
                       {"waits", a.waits},
                       {"stalls", a.stalls},
                       {"stall_threshold_ms", core::stall_threshold_ms(cfg.stall_threshold)},
                       {"completions", a.completions},
                       {"waited_seconds", std::chrono::duration<double>(a.waited).count()},
                       {"longest_wait_ms", std::chrono::duration<double, std::milli>(a.longest_wait).count()}};
  }
  if (cfg.verify && !cfg.transmit) j["end"]["verify"] = {{"bytes_checked", r.bytes}, {"ok", true}};
  return j.dump(2);
}

}  // namespace ackstall::ttcp
