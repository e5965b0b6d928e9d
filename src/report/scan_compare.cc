#include "ackstall/report/scan_compare.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ackstall/core/limit_cause.h"
#include "ackstall/core/plural.h"
#include "ackstall/core/goodput_text.h"

namespace ackstall::report {
namespace {

std::string pct(double share) { return fmt::format("{:.1f} %", 100 * share); }

std::string goodputs(const pcap::ServiceComparison& m) {
  const double g0 = m.before.goodput_bytes_per_s(), g1 = m.after.goodput_bytes_per_s();
  return fmt::format("{} -> {}{}", core::format_goodput(g0), core::format_goodput(g1),
                     g0 > 0 ? fmt::format(" ({:.2f}x)", g1 / g0) : "");
}

std::string verdict_text(const pcap::ServiceComparison& m) {
  const std::string g = goodputs(m);
  if (!m.problem) return "healthy before and after (no cause costs 5 % of the time); goodput " + g;
  const core::LimitCause p = *m.problem;
  const std::string moved = fmt::format("{} {} -> {} of the time", core::to_string(p), pct(m.before.share(p)),
                                        pct(m.after.share(p)));
  switch (m.verdict) {
    case pcap::CompareVerdict::gone:
      return fmt::format("{} gone: no problem cause is left ({}; what remains is under 5 % or no pattern); "
                         "goodput {}",
                         core::describe(p), moved, g);
    case pcap::CompareVerdict::reduced:
      return fmt::format("{} reduced, not gone: {}; goodput {}", core::describe(p), moved, g);
    case pcap::CompareVerdict::unchanged:
      return fmt::format("no change: the fix did not reach this connection ({}; goodput {})", moved, g);
    case pcap::CompareVerdict::changed:
      return fmt::format("changed: {}; now {}; goodput {}", moved,
                         m.after.problem ? fmt::format("limited by {}", core::describe(*m.after.problem))
                                         : std::string("no problem cause"),
                         g);
    case pcap::CompareVerdict::new_problem:
      return fmt::format("worse: a new problem, {} ({} of the time after); goodput {}", core::describe(p),
                         pct(m.after.share(p)), g);
    case pcap::CompareVerdict::healthy: break;
  }
  return "healthy before and after; goodput " + g;
}

}  // namespace

void print_comparison_text(const pcap::FileScan& before, const pcap::FileScan& after, const pcap::Comparison& c,
                           std::ostream& out) {
  fmt::print(out, "before: {}\nafter:  {}\n", before.name, after.name);
  if (c.matched.empty()) {
    fmt::print(out, "\nnothing matched: the captures share no service (sender, receiver and service port of a "
                    "connection with at least 10 data segments)\n");
  }
  for (const pcap::ServiceComparison& m : c.matched) {
    fmt::print(out, "\n{}  ({} before, {} after)\n", pcap::service_name(m.sender, m.receiver),
               core::plural(m.before.connections, "connection"), core::plural(m.after.connections, "connection"));
    fmt::print(out, "  goodput: {}\n", goodputs(m));
    fmt::print(out, "  where the time went   {:>18}   {:>18}\n", "before", "after");
    for (core::LimitCause cause : core::kLimitCauses) {
      const std::size_t i = static_cast<std::size_t>(cause);
      if (m.before.cause_ns[i] == 0 && m.after.cause_ns[i] == 0) continue;
      fmt::print(out, "    {:<18} {:>7}  {:>9.3f} s   {:>7}  {:>9.3f} s\n", core::to_string(cause), pct(m.before.share(cause)),
                 static_cast<double>(m.before.cause_ns[i]) / 1e9, pct(m.after.share(cause)),
                 static_cast<double>(m.after.cause_ns[i]) / 1e9);
    }
    fmt::print(out, "  verdict: {}\n", verdict_text(m));
  }
  for (const auto& n : c.only_before) fmt::print(out, "\nonly before: {}\n", n);
  for (const auto& n : c.only_after) fmt::print(out, "\nonly after: {}\n", n);
}

void print_comparison_json(const pcap::FileScan& before, const pcap::FileScan& after, const pcap::Comparison& c,
                           std::ostream& out) {
  const auto side = [](const pcap::ServiceSide& s) {
    nlohmann::json causes = nlohmann::json::object();
    for (core::LimitCause cause : core::kLimitCauses) {
      const std::size_t i = static_cast<std::size_t>(cause);
      if (s.cause_ns[i] > 0) causes[std::string(core::to_string(cause))] = static_cast<double>(s.cause_ns[i]) / 1e9;
    }
    return nlohmann::json{{"connections", s.connections},
                          {"bytes", s.bytes},
                          {"duration_s", static_cast<double>(s.duration_ns) / 1e9},
                          {"goodput_bytes_per_s", s.goodput_bytes_per_s()},
                          {"cause_s", causes},
                          {"problem", s.problem ? nlohmann::json(std::string(core::to_string(*s.problem)))
                                                : nlohmann::json()}};
  };
  nlohmann::json matched = nlohmann::json::array();
  for (const pcap::ServiceComparison& m : c.matched) {
    matched.push_back({{"service", pcap::service_name(m.sender, m.receiver)},
                       {"before", side(m.before)},
                       {"after", side(m.after)},
                       {"verdict", std::string(pcap::to_string(m.verdict))},
                       {"problem", m.problem ? nlohmann::json(std::string(core::to_string(*m.problem))) : nlohmann::json()},
                       {"summary", verdict_text(m)}});
  }
  const nlohmann::json j = {{"before", before.name}, {"after", after.name}, {"matched", matched},
                            {"only_before", c.only_before}, {"only_after", c.only_after}};
  out << j.dump(2) << '\n';
}

}  // namespace ackstall::report
