#include "ackstall/report/scan_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <optional>

#include "ackstall/pcap/capture_source.h"
#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/frame_decoder.h"

namespace ackstall::report {

core::Result<std::vector<TimeSequence>> collect_time_sequences(const std::vector<std::string>& files, const std::string& bpf,
                                                              const pcap::FileScan& scan,
                                                              const std::vector<const pcap::DirectionReport*>& directions) {
  std::vector<TimeSequence> out(directions.size());
  std::vector<std::optional<std::uint32_t>> base(directions.size());  // each sender's first data byte
  const auto seconds = [&scan](std::int64_t ns) { return static_cast<double>(ns - scan.first_ns) / 1e9; };
  std::multimap<std::pair<pcap::SocketAddr, pcap::SocketAddr>, std::pair<std::size_t, bool>> by_endpoints;
  for (std::size_t i = 0; i < directions.size(); ++i) {
    by_endpoints.insert({{directions[i]->sender, directions[i]->receiver}, {i, true}});
    by_endpoints.insert({{directions[i]->receiver, directions[i]->sender}, {i, false}});
  }
  for (const std::string& file : files) {
  auto source = pcap::CaptureSource::open(file, bpf);
  if (!source) return core::fail(source.error().message());
  for (;;) {
    auto rec = source->next();
    if (!rec || !*rec) break;  // the scan has reported any error already
    const auto& r = **rec;
    auto frame = pcap::decode_frame(source->link(), r.data, r.orig_len, r.time_ns);
    if (!frame) continue;
    const pcap::TcpPacket& p = frame->packet;
    // The directions this frame belongs to: as sent (data) or as their ACKs (one lookup a frame).
    const auto [first, last] = by_endpoints.equal_range({frame->src, frame->dst});
    for (auto it = first; it != last; ++it) {
      const auto [i, from_sender] = it->second;
      const pcap::DirectionReport& d = *directions[i];
      TimeSequence& ts = out[i];
      // Signed distance from the first byte seen: a capture started mid-transfer shows ACKs (or
      // retransmissions) below it, which an unsigned one would put 4 GB up (RFC 9293 §3.4: sequence
      // numbers compare modulo 2^32).
      const auto rel = [&b = base[i]](std::uint32_t seq) { return static_cast<double>(static_cast<std::int32_t>(seq - *b)); };
      const bool to_sender = !from_sender;
      if (from_sender) {
        if (!base[i]) base[i] = p.seq + (p.has(pcap::tcp_flag::syn) ? 1u : 0u);
        if (p.payload_len > 0) ts.data.push_back({seconds(r.time_ns), rel(p.seq) + p.payload_len});
      } else if (to_sender && base[i] && p.has(pcap::tcp_flag::ack) && !p.has(pcap::tcp_flag::syn)) {
        ts.acks.push_back({seconds(r.time_ns), rel(p.ack)});
        // The window field is scaled by the receiver's shift from its SYN (RFC 7323 §2.2).
        const double offered = static_cast<double>(std::uint64_t{p.window} << d.receiver_wscale.value_or(0));
        ts.window.push_back({seconds(r.time_ns), rel(p.ack) + offered});
      }
    }
  }
  }
  const auto by_time = [](const TimeSequence::Point& a, const TimeSequence::Point& b) { return a.t < b.t; };
  for (TimeSequence& ts : out) {
    for (auto* series : {&ts.data, &ts.acks, &ts.window}) std::stable_sort(series->begin(), series->end(), by_time);
  }
  // Under the graph, where the time went: one lane per cause (core/limit_cause.h), each span of
  // the timeline in its cause's lane.
  for (std::size_t i = 0; i < directions.size(); ++i) {
    for (const auto& sp : directions[i]->timeline) {
      out[i].stalls.push_back({seconds(sp.start_ns), seconds(sp.end_ns), static_cast<std::size_t>(sp.cause)});
    }
    for (core::LimitCause c : core::kLimitCauses) out[i].lanes.emplace_back(core::to_string(c));
  }
  return out;
}

core::Result<void> plot_capture(const std::string& file, const std::string& bpf, const pcap::FileScan& scan,
                                const pcap::DirectionReport& d, const std::string& path,
                                const PlotWindow& window) {
  auto collected = collect_time_sequences({file}, bpf, scan, {&d});
  if (!collected) return core::fail("--plot: " + collected.error().message());
  const TimeSequence& ts = collected->front();
  // The header: goodput, and the dominant cause with its share of the time (pcap/diagnosis.h).
  const pcap::Diagnosis g = pcap::diagnose(d);
  std::string verdict;
  if (!g.accounts.empty()) {
    verdict = fmt::format("; {:.0f} % {}", 100 * g.accounts.front().share, core::to_string(g.accounts.front().cause));
    if (g.problem && *g.problem != g.accounts.front().cause) verdict += fmt::format(", problem {}", core::to_string(*g.problem));
  }
  const std::string title = fmt::format("{}: {} -> {}, {:.3f} MiB/s{}", scan.name, pcap::format_socket_addr(d.sender),
                                        pcap::format_socket_addr(d.receiver), d.goodput_bytes_per_s / (1 << 20), verdict);
  return render_time_sequence(ts, path, title, window);
}

}  // namespace ackstall::report
