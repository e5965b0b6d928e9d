#include "ackstall/analysis/sim_causes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ackstall::analysis {
namespace {

pcap::ScanOptions options(core::StallThreshold threshold) {
  pcap::ScanOptions o;
  o.threshold = threshold;
  o.keep_stalls = 0;  // the accounts only: no stall list
  return o;
}

double share_of(const std::vector<pcap::CauseShare>& v, core::LimitCause c) {
  for (const auto& s : v)
    if (s.cause == c) return s.share;
  return 0;
}

}  // namespace

CauseTraceSink::CauseTraceSink(core::StallThreshold stall_threshold)
    : scanner_(options(stall_threshold)),
      packets_(
          [this](const pcap::TcpPacket& p) -> pcap::Result<void> {
            scanner_.add(p);
            return {};
          },
          CapturePoint::sender, 0) {}

std::optional<pcap::DirectionReport> CauseTraceSink::finish() {
  (void)packets_.finish();  // a consumer that cannot fail
  std::optional<pcap::DirectionReport> best;
  for (const auto& f : scanner_.report()) {
    for (const auto& d : f.directions) {
      if (!best || d.bytes_sent > best->bytes_sent) best = d;
    }
  }
  return best;
}

std::vector<pcap::CauseShare> cause_shares(const core::CauseTimes& ns, std::int64_t duration_ns) {
  std::vector<pcap::CauseShare> out;
  if (duration_ns <= 0) return out;
  for (core::LimitCause c : core::kLimitCauses) {
    const std::int64_t t = ns[static_cast<std::size_t>(c)];
    if (t > 0) out.push_back({c, t, static_cast<double>(t) / static_cast<double>(duration_ns)});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ns > b.ns; });
  return out;
}

CauseComparison compare_causes(const sim::CauseAccounts& own, const pcap::DirectionReport& scanned) {
  CauseComparison r;
  r.own = cause_shares(own.cause_ns, own.duration_ns);
  r.scanner = pcap::diagnose(scanned).accounts;
  r.tolerance = kCauseTolerance;
  if (r.own.empty() != r.scanner.empty()) {
    r.detail = fmt::format("one side has no accounts (own {}, scanner {})", r.own.size(), r.scanner.size());
    return r;
  }
  if (!r.own.empty() && r.own.front().cause != r.scanner.front().cause) {
    r.detail = fmt::format("the dominant cause differs: own {} {:.1f} %, scanner {} {:.1f} %",
                           core::to_string(r.own.front().cause), 100 * r.own.front().share,
                           core::to_string(r.scanner.front().cause), 100 * r.scanner.front().share);
    return r;
  }
  for (core::LimitCause c : core::kLimitCauses) {
    const double a = share_of(r.own, c), b = share_of(r.scanner, c);
    if (std::abs(a - b) > r.tolerance) {
      r.detail = fmt::format("{}: own {:.1f} %, scanner {:.1f} % (tolerance {:.1f} points)", core::to_string(c),
                             100 * a, 100 * b, 100 * r.tolerance);
      return r;
    }
  }
  r.agree = true;
  return r;
}

}  // namespace ackstall::analysis
