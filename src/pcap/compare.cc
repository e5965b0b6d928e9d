#include "ackstall/pcap/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/triage.h"

namespace ackstall::pcap {

double ServiceSide::goodput_bytes_per_s() const noexcept {
  return duration_ns > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(duration_ns) : 0;
}

double ServiceSide::share(core::LimitCause c) const noexcept {
  return duration_ns > 0 ? static_cast<double>(cause_ns[static_cast<std::size_t>(c)]) / static_cast<double>(duration_ns)
                         : 0;
}

std::string_view to_string(CompareVerdict v) noexcept {
  switch (v) {
    case CompareVerdict::gone: return "gone";
    case CompareVerdict::reduced: return "reduced";
    case CompareVerdict::unchanged: return "unchanged";
    case CompareVerdict::changed: return "changed";
    case CompareVerdict::healthy: return "healthy";
    case CompareVerdict::new_problem: return "new_problem";
  }
  return "?";
}

std::string service_name(const SocketAddr& sender, const SocketAddr& receiver) {
  const auto side = [](const SocketAddr& s) {
    return s.port == 0 ? format_socket_addr(s).substr(0, format_socket_addr(s).rfind(':')) : format_socket_addr(s);
  };
  return side(sender) + " -> " + side(receiver);
}

namespace {

struct Pool {
  SocketAddr sender, receiver;
  ServiceSide side;
  std::array<std::int64_t, std::tuple_size_v<core::CauseTimes>> lost{};  // per problem cause
};

using Key = std::tuple<SocketAddr, SocketAddr>;

std::map<Key, Pool> pool(const std::vector<FlowReport>& flows) {
  std::map<Key, Pool> out;
  for (const TriageRow& r : triage(flows).rows) {
    // The name and the times are the data direction's (the one more bytes were acknowledged in),
    // whichever direction triage judged: a fix that removes a request's stall moves triage's
    // choice to the reply, and the service must still match. The problem is the row's own.
    const auto data = std::max_element(r.flow->directions.begin(), r.flow->directions.end(),
                                       [](const DirectionReport& a, const DirectionReport& b) {
                                         return a.bytes_acked < b.bytes_acked;
                                       });
    const DirectionReport& d = *data;
    // The service's port is the lower one; the client's (ephemeral) port is dropped.
    SocketAddr s = d.sender, v = d.receiver;
    (s.port < v.port ? v : s).port = 0;
    Pool& p = out[{s, v}];
    p.sender = s;
    p.receiver = v;
    p.side.connections += 1;
    p.side.bytes += d.bytes_acked;
    p.side.duration_ns += d.duration_ns;
    for (std::size_t c = 0; c < p.side.cause_ns.size(); ++c) p.side.cause_ns[c] += d.cause_ns[c];
    if (r.problem_cause) p.lost[static_cast<std::size_t>(*r.problem_cause)] += r.lost_ns;
  }
  for (auto& [key, p] : out) {
    const auto worst = std::max_element(p.lost.begin(), p.lost.end());
    if (*worst > 0) p.side.problem = static_cast<core::LimitCause>(worst - p.lost.begin());
  }
  return out;
}

CompareVerdict verdict_of(const ServiceSide& before, const ServiceSide& after) {
  if (!before.problem) return after.problem ? CompareVerdict::new_problem : CompareVerdict::healthy;
  const core::LimitCause p = *before.problem;
  const double was = before.share(p), now = after.share(p);
  if (!after.problem) return CompareVerdict::gone;
  if (after.problem != p) return CompareVerdict::changed;
  if (now < was / 2) return CompareVerdict::reduced;
  const double g0 = before.goodput_bytes_per_s(), g1 = after.goodput_bytes_per_s();
  if (g0 > 0 && std::abs(g1 - g0) < 0.1 * g0) return CompareVerdict::unchanged;
  return CompareVerdict::changed;
}

}  // namespace

Comparison compare(const std::vector<FlowReport>& before, const std::vector<FlowReport>& after) {
  const auto b = pool(before), a = pool(after);
  Comparison out;
  for (const auto& [key, pb] : b) {
    const auto it = a.find(key);
    if (it == a.end()) {
      out.only_before.push_back(service_name(pb.sender, pb.receiver));
      continue;
    }
    ServiceComparison c{pb.sender, pb.receiver, pb.side, it->second.side, CompareVerdict::unchanged, {}};
    c.verdict = verdict_of(c.before, c.after);
    c.problem = c.before.problem ? c.before.problem : c.after.problem;
    out.matched.push_back(c);
  }
  for (const auto& [key, pa] : a) {
    if (!b.contains(key)) out.only_after.push_back(service_name(pa.sender, pa.receiver));
  }
  std::stable_sort(out.matched.begin(), out.matched.end(),
                   [](const ServiceComparison& x, const ServiceComparison& y) { return x.before.bytes > y.before.bytes; });
  return out;
}

}  // namespace ackstall::pcap
