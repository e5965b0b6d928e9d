#include "ackstall/pcap/triage.h"

#include <algorithm>
#include <tuple>

namespace ackstall::pcap {

std::size_t Triage::problems() const noexcept {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const TriageRow& r) { return r.problem(); }));
}

namespace {

std::int64_t problem_ns(const Diagnosis& g) {
  if (!g.problem) return 0;
  for (const CauseShare& a : g.accounts) {
    if (a.cause == *g.problem) return a.ns;
  }
  return 0;
}

}  // namespace

Triage triage(const std::vector<FlowReport>& flows) {
  Triage t;
  for (const FlowReport& f : flows) {
    std::uint64_t bytes = 0, segments = 0;
    for (const DirectionReport& d : f.directions) {
      bytes += d.bytes_sent;
      segments += d.data_segments;
    }
    if (f.directions.empty()) {
      ++t.no_data;
      continue;
    }
    if (segments < kTriageMinSegments) {
      ++t.tiny;
      continue;
    }
    TriageRow row;
    row.flow = &f;
    row.bytes = bytes;
    row.data_segments = segments;
    bool first = true;
    for (std::size_t i = 0; i < f.directions.size(); ++i) {
      Diagnosis g = diagnose(f.directions[i]);
      const std::int64_t lost = problem_ns(g);
      const bool worse = first || lost > row.lost_ns ||
                         (lost == row.lost_ns && f.directions[i].bytes_sent > row.judged().bytes_sent);
      if (worse) {
        row.direction = i;
        row.dominant = g.dominant;
        row.problem_cause = g.problem;
        row.lost_ns = lost;
      }
      first = false;
    }
    row.duration_ns = row.judged().duration_ns;
    row.goodput_bytes_per_s = row.judged().goodput_bytes_per_s;
    t.rows.push_back(std::move(row));
  }
  std::sort(t.rows.begin(), t.rows.end(), [](const TriageRow& a, const TriageRow& b) {
    if (a.problem() != b.problem()) return a.problem();
    if (a.lost_ns != b.lost_ns) return a.lost_ns > b.lost_ns;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.flow->key < b.flow->key;
  });
  return t;
}

}  // namespace ackstall::pcap
