#include "ackstall/pcap/stall_scanner.h"

#include "ackstall/pcap/capture_artefacts.h"
#include "half_flow.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <optional>

namespace ackstall::pcap {

struct StallScanner::Flow {
  Flow(const FlowKey& key, const ScanOptions& options)
      : a_to_b(key.a, key.b, options), b_to_a(key.b, key.a, options), link(options.threshold.count()) {}
  std::uint64_t packets = 0;
  DuplicateFilter duplicates;
  detail::HalfFlow a_to_b, b_to_a;
  // The two directions' waits and stalls linked (reply_link.h), for the connection on these
  // addresses whose count is `generation` (a new one reusing them starts afresh).
  detail::ReplyLink link;
  std::uint64_t generation = 0;
  bool fin_from_a = false, fin_from_b = false;
  std::optional<std::int64_t> closed_ns;  // both FINs seen, or a RST
};

std::string_view to_string(AckEvery a) noexcept {
  switch (a) {
    case AckEvery::unknown: return "unknown";
    case AckEvery::every_segment: return "every_segment";
    case AckEvery::every_second_segment: return "every_second_segment";
    case AckEvery::other: return "other";
  }
  return "?";
}

StallScanner::StallScanner(ScanOptions options) : options_(options) {}
StallScanner::StallScanner(StallScanner&&) noexcept = default;
StallScanner& StallScanner::operator=(StallScanner&&) noexcept = default;
StallScanner::~StallScanner() = default;

void StallScanner::add(const TcpPacket& p) {
  add(p, {p.src.addr, p.src.port}, {p.dst.addr, p.dst.port}, added_ + 1);
}

void StallScanner::add(const TcpPacket& p, const SocketAddr& src, const SocketAddr& dst,
                       std::uint64_t frame, std::uint8_t ttl, std::uint16_t ip_id) {
  ++added_;
  // The flow of the frame before, in either direction, without ordering a key (most frames are
  // of the flow before; the cost: docs/BENCHMARKS.md "scan vs tshark").
  bool from_a = true;
  if (last_ != nullptr && src == last_key_.a && dst == last_key_.b) {
    from_a = true;
  } else if (last_ != nullptr && src == last_key_.b && dst == last_key_.a) {
    from_a = false;
  } else {
    const FlowKey key = make_flow_key(src, dst);
    auto& slot = flows_[key];
    if (!slot) slot = std::make_unique<Flow>(key, options_);
    last_ = slot.get();
    last_key_ = key;
    from_a = src == key.a;
  }
  const FlowKey& key = last_key_;
  Flow& f = *last_;
  f.packets++;
  // A frame captured twice, or again as a router forwarded it, is the capture's, not the hosts':
  // counted, left out (capture_artefacts.h).
  if (f.duplicates.classify(p, from_a, ip_id, ttl) != Artefact::none) return;
  (from_a ? f.a_to_b : f.b_to_a).on_sender(p, frame, ttl);
  (from_a ? f.b_to_a : f.a_to_b).on_receiver(p, frame, ttl);
  if (p.has(tcp_flag::syn)) {
    // A new connection on these addresses starts its links afresh.
    if (const std::uint64_t g = f.a_to_b.generation() + f.b_to_a.generation(); g != f.generation) {
      f.generation = g;
      f.link = detail::ReplyLink(options_.threshold.count());
    }
  }
  if (!f.a_to_b.runs().finished().empty() || !f.b_to_a.runs().finished().empty()) {
    f.link.take(f.a_to_b.runs(), f.a_to_b.link_horizon(p.time_ns), f.b_to_a.runs(), f.b_to_a.link_horizon(p.time_ns));
  }
  if (p.has(tcp_flag::fin)) (from_a ? f.fin_from_a : f.fin_from_b) = true;
  if (!f.closed_ns && (p.has(tcp_flag::rst) || (f.fin_from_a && f.fin_from_b))) {
    f.closed_ns = p.time_ns;
    closing_.emplace_back(p.time_ns, key);
  }
  if (!closing_.empty() && p.time_ns - closing_.front().first >= kRetireAfterNs) retire_closed(p.time_ns);
}

FlowReport StallScanner::report_of(const FlowKey& key, const Flow& flow) {
  FlowReport r{key, flow.packets, {}};
  if (flow.a_to_b.carried_data()) {
    r.directions.push_back(flow.a_to_b.report());
    r.directions.back().duplicate_frames = flow.duplicates.count(true);
    r.directions.back().forwarded_copies = flow.duplicates.forwarded(true);
  }
  if (flow.b_to_a.carried_data()) {
    r.directions.push_back(flow.b_to_a.report());
    r.directions.back().duplicate_frames = flow.duplicates.count(false);
    r.directions.back().forwarded_copies = flow.duplicates.forwarded(false);
  }
  // Both directions carried data: each one's waits for the other's reply against the other's
  // stalls (reply_link.h).
  if (r.directions.size() == 2) {
    flow.link.settle(flow.a_to_b.final_runs(), flow.b_to_a.final_runs(), r.directions[0], r.directions[1]);
  }
  return r;
}

void StallScanner::retire_closed(std::int64_t now_ns) {
  while (!closing_.empty() && now_ns - closing_.front().first >= kRetireAfterNs) {
    const auto [closed_at, key] = closing_.front();
    closing_.pop_front();
    const auto it = flows_.find(key);
    if (it == flows_.end() || it->second->closed_ns != closed_at) continue;
    retired_.push_back(report_of(it->first, *it->second));
    if (last_ == it->second.get()) last_ = nullptr;
    flows_.erase(it);
  }
}

namespace {

// Every flow's report: the retired ones, then the held ones, by key as the map held them (a key's
// retired connection before its later one).
std::vector<FlowReport> joined(std::vector<FlowReport> out, std::vector<FlowReport> held) {
  out.insert(out.end(), std::make_move_iterator(held.begin()), std::make_move_iterator(held.end()));
  std::stable_sort(out.begin(), out.end(), [](const FlowReport& a, const FlowReport& b) { return a.key < b.key; });
  return out;
}

}  // namespace

std::vector<FlowReport> StallScanner::report() const {
  std::vector<FlowReport> held;
  held.reserve(flows_.size());
  for (const auto& [key, flow] : flows_) held.push_back(report_of(key, *flow));
  return joined(retired_, std::move(held));
}

std::vector<FlowReport> StallScanner::take_report() {
  std::vector<FlowReport> held;
  held.reserve(flows_.size());
  for (const auto& [key, flow] : flows_) held.push_back(report_of(key, *flow));
  return joined(std::exchange(retired_, {}), std::move(held));
}

}  // namespace ackstall::pcap
