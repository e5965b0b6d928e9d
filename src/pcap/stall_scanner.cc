#include "ackstall/pcap/stall_scanner.h"

#include "ackstall/pcap/capture_artefacts.h"
#include "half_flow.h"

namespace ackstall::pcap {

struct StallScanner::Flow {
  Flow(const FlowKey& key, const ScanOptions& options)
      : a_to_b(key.a, key.b, options), b_to_a(key.b, key.a, options) {}
  std::uint64_t packets = 0;
  DuplicateFilter duplicates;
  detail::HalfFlow a_to_b, b_to_a;
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
  const FlowKey key = make_flow_key(src, dst);
  if (last_ == nullptr || key != last_key_) {
    auto& slot = flows_[key];
    if (!slot) slot = std::make_unique<Flow>(key, options_);
    last_ = slot.get();
    last_key_ = key;
  }
  Flow& f = *last_;
  f.packets++;
  const bool from_a = src == key.a;
  // A frame captured twice is the capture's, not the hosts': counted, left out.
  if (f.duplicates.is_duplicate(p, from_a, ip_id)) return;
  (from_a ? f.a_to_b : f.b_to_a).on_sender(p, frame, ttl);
  (from_a ? f.b_to_a : f.a_to_b).on_receiver(p, frame, ttl);
}

std::vector<FlowReport> StallScanner::report() const {
  std::vector<FlowReport> out;
  out.reserve(flows_.size());
  for (const auto& [key, flow] : flows_) {
    FlowReport r{key, flow->packets, {}};
    if (flow->a_to_b.carried_data()) {
      r.directions.push_back(flow->a_to_b.report());
      r.directions.back().duplicate_frames = flow->duplicates.count(true);
    }
    if (flow->b_to_a.carried_data()) {
      r.directions.push_back(flow->b_to_a.report());
      r.directions.back().duplicate_frames = flow->duplicates.count(false);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ackstall::pcap
