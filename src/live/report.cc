#include "ackstall/live/report.h"

#include <algorithm>
#include <fmt/format.h>

namespace ackstall::live {
namespace {

double seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

double goodput(const Attribution& a) {
  return a.interval_ns > 0 ? static_cast<double>(a.bytes_acked) / seconds(a.interval_ns) : 0;
}

// JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7).
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

struct Share {
  core::LimitCause cause;
  std::int64_t ns;
};
std::vector<Share> accounts(const Attribution& a) {
  std::vector<Share> out;
  for (const core::LimitCause c : core::kLimitCauses) {
    if (const std::int64_t ns = a.times[static_cast<std::size_t>(c)]; ns > 0) out.push_back({c, ns});
  }
  std::stable_sort(out.begin(), out.end(), [](const Share& x, const Share& y) { return x.ns > y.ns; });
  return out;
}

double share_of(std::int64_t ns, const Attribution& a) {
  return a.interval_ns > 0 ? static_cast<double>(ns) / static_cast<double>(a.interval_ns) : 0;
}

// "delayed_ack 81%" or "network 97%": the problem if there is one, else the dominant cause.
std::string cause_cell(const ConnectionView& v) {
  if (v.last.role == Role::receiver) return "(receiving)";
  const core::LimitCause c = v.verdict.problem.value_or(v.verdict.dominant);
  return fmt::format("{} {:.0f}%", core::to_string(c), 100 * share_of(v.last.times[static_cast<std::size_t>(c)], v.last));
}

}  // namespace

std::string table(const std::vector<ConnectionView>& rows, std::size_t max_rows, double t_s, std::size_t watched,
                  std::uint64_t skipped) {
  std::string out = fmt::format("ackstall watch: {:.1f} s, {} connection{} watched, {} moving data{}\n", t_s, watched,
                                watched == 1 ? "" : "s", rows.size(),
                                skipped ? fmt::format(", {} closed mid-sample", skipped) : "");
  out += fmt::format("{:<24} {:<24} {:>11} {:<22} {:<5} {:>15} {:>5} {:>9} {:>4}\n", "LOCAL", "REMOTE", "Mbit/s",
                     "LIMIT", "SEV", "SRTT/MIN ms", "UNACK", "NOTSENT", "RETR");
  const std::size_t shown = std::min(rows.size(), max_rows);
  for (std::size_t i = 0; i < shown; ++i) {
    const ConnectionView& v = rows[i];
    const TcpInfo& n = v.now.info;
    const double mbit = 8 * (v.last.role == Role::receiver
                                 ? static_cast<double>(v.last.bytes_received) / std::max(seconds(v.last.interval_ns), 1e-9)
                                 : goodput(v.last)) / 1e6;
    out += fmt::format("{:<24} {:<24} {:>11.2f} {:<22} {:<5} {:>7.2f}/{:<7.3f} {:>5} {:>9} {:>4}\n", v.now.key.local,
                       v.now.key.remote, mbit, cause_cell(v),
                       v.last.role == Role::receiver ? "-" : to_string(v.verdict.severity), n.rtt_us / 1e3,
                       n.min_rtt_us / 1e3, n.unacked, n.notsent_bytes, v.last.retransmitted);
  }
  if (rows.size() > shown) out += fmt::format("... {} more\n", rows.size() - shown);
  for (std::size_t i = 0; i < shown; ++i) {
    const ConnectionView& v = rows[i];
    if (!v.verdict.problem || v.verdict.fixes.empty()) continue;
    out += fmt::format("  {} -> {}: {}; fix: {}\n", v.now.key.local, v.now.key.remote,
                       core::describe(*v.verdict.problem), v.verdict.fixes.front());
  }
  return out;
}

std::string json_line(const ConnectionView& v, double t_s, bool summary) {
  const Attribution& a = v.last;
  const TcpInfo& n = v.now.info;
  std::string acc;
  for (const Share& s : accounts(a)) {
    acc += fmt::format("{}{{\"cause\": {}, \"seconds\": {:.6f}, \"share\": {:.4f}}}", acc.empty() ? "" : ", ",
                       quoted(core::to_string(s.cause)), seconds(s.ns), share_of(s.ns, a));
  }
  std::string fixes;
  for (const std::string& f : v.verdict.fixes) fixes += (fixes.empty() ? "" : ", ") + quoted(f);
  std::string out = fmt::format(
      "{{\"t_s\": {:.3f}, \"local\": {}, \"remote\": {}, \"role\": {}, \"interval_s\": {:.6f}, \"bytes_acked\": {}, "
      "\"bytes_received\": {}, \"goodput_bytes_per_s\": {:.0f}, \"accounts\": [{}], \"dominant\": {}, \"problem\": {}, "
      "\"problem_share\": {:.4f}, \"severity\": {}, \"ack_hold_ms\": {}, \"rtt_us\": {}, \"min_rtt_us\": {}, "
      "\"cwnd\": {}, \"snd_wnd\": {}, \"unacked\": {}, \"notsent_bytes\": {}, \"retransmitted\": {}, \"delivery_rate_bytes_per_s\": {}, "
      "\"app_limited\": {}, \"ato_us\": {}, \"sndbuf\": {}, \"wmem_queued\": {}, \"peer\": {}, \"fixes\": [{}]",
      t_s, quoted(v.now.key.local), quoted(v.now.key.remote), quoted(to_string(a.role)), seconds(a.interval_ns),
      a.bytes_acked, a.bytes_received, goodput(a), acc,
      a.role == Role::sender ? quoted(core::to_string(v.verdict.dominant)) : "null",
      v.verdict.problem ? quoted(core::to_string(*v.verdict.problem)) : "null", v.verdict.problem_share,
      quoted(to_string(v.verdict.severity)),
      a.ack_hold_ns > 0 ? fmt::format("{:.3f}", static_cast<double>(a.ack_hold_ns) / 1e6) : "null", n.rtt_us,
      n.min_rtt_us, n.snd_cwnd, n.snd_wnd ? fmt::format("{}", *n.snd_wnd) : "null", n.unacked, n.notsent_bytes, a.retransmitted, n.delivery_rate, n.app_limited,
      n.ato_us, v.now.memory ? fmt::format("{}", v.now.memory->sndbuf) : "null",
      v.now.memory ? fmt::format("{}", v.now.memory->wmem_queued) : "null", quoted(v.verdict.peer), fixes);
  if (summary) out += fmt::format(", \"summary\": true, \"closed\": {}", v.closed);
  return out + "}\n";
}

std::string stall_line(const EventStall& s, double t_s) {
  return fmt::format("t={:.3f} s {} -> {}: {}-byte send, ACK after {:.1f} ms ({}, {} bytes out)\n", t_s, s.local,
                     s.remote, s.send_length, static_cast<double>(s.wait_ns) / 1e6, core::to_string(s.cause),
                     s.outstanding);
}

std::string stall_json(const EventStall& s, double t_s) {
  return fmt::format("{{\"event\": \"stall\", \"t_s\": {:.6f}, \"local\": {}, \"remote\": {}, \"cause\": {}, "
                     "\"wait_ms\": {:.3f}, \"send_length\": {}, \"outstanding\": {}}}\n",
                     t_s, quoted(s.local), quoted(s.remote), quoted(core::to_string(s.cause)),
                     static_cast<double>(s.wait_ns) / 1e6, s.send_length, s.outstanding);
}

std::string summary_text(const std::vector<ConnectionView>& rows, double watched_s) {
  std::string out = fmt::format("summary: {} connection{} moved data in {:.1f} s\n", rows.size(),
                                rows.size() == 1 ? "" : "s", watched_s);
  for (const ConnectionView& v : rows) {
    const Attribution& a = v.total;
    out += fmt::format("{} -> {}{}: {}\n", v.now.key.local, v.now.key.remote, v.closed ? " (closed)" : "",
                       a.role == Role::receiver
                           ? fmt::format("received {} bytes in {:.3f} s (its peer, the sender, says what limits it)",
                                         a.bytes_received, seconds(a.interval_ns))
                           : fmt::format("{} bytes acknowledged in {:.3f} s ({:.2f} Mbit/s)", a.bytes_acked,
                                         seconds(a.interval_ns), 8 * goodput(a) / 1e6));
    if (a.role != Role::sender) continue;
    out += "  where the time went:\n";
    for (const Share& s : accounts(a)) {
      if (share_of(s.ns, a) < 0.0005) continue;  // rounds to 0.0 %
      out += fmt::format("    {:5.1f} %  {:9.3f} s  {:<16} {}\n", 100 * share_of(s.ns, a), seconds(s.ns),
                         core::to_string(s.cause), core::describe(s.cause));
    }
    if (a.chrono_missing) out += "  warning: this kernel has no tcpi_busy_time (before 4.10): busy time is assumed\n";
    out += fmt::format("  verdict: {}\n",
                       v.verdict.problem ? fmt::format("limited by {} ({:.0f} % of the time, {})",
                                                       core::describe(*v.verdict.problem),
                                                       100 * v.verdict.problem_share, to_string(v.verdict.severity))
                                         : fmt::format("healthy: {} sets the pace", core::describe(v.verdict.dominant)));
    out += fmt::format("  peer: {}\n", v.verdict.peer);
    for (std::size_t i = 0; i < v.verdict.fixes.size(); ++i) out += fmt::format("    fix {}: {}\n", i + 1, v.verdict.fixes[i]);
  }
  return out;
}

}  // namespace ackstall::live
