// ackstall scan: find delayed-ACK stalls in a pcap capture (pcap::scan_file), per flow.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "ackstall/pcap/scan_file.h"
#include "app.h"

namespace ackstall::tools {
namespace {

struct ScanCli {
  std::string file;
  double threshold_ms = 20;
  std::vector<std::string> flows;
  bool json = false;
  std::size_t max_stalls = 20;
};

double seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }
double millis(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string direction_name(const pcap::DirectionReport& d) {
  return fmt::format("{} -> {}", pcap::format_socket_addr(d.sender),
                     pcap::format_socket_addr(d.receiver));
}

nlohmann::json to_json(const pcap::DirectionReport& d, std::int64_t t0) {
  nlohmann::json kinds = nlohmann::json::object();
  for (std::size_t k = 0; k < pcap::kStallKindCount; ++k) {
    kinds[std::string(pcap::to_string(static_cast<pcap::StallKind>(k)))] = d.stall_counts[k];
  }
  nlohmann::json stalls = nlohmann::json::array();
  for (const pcap::Stall& s : d.stalls) {
    stalls.push_back({{"time_s", seconds(s.start_ns - t0)},
                      {"duration_ms", millis(s.duration_ns())},
                      {"ack_delay_ms", millis(s.ack_delay_ns)},
                      {"seq", s.seq},
                      {"outstanding", s.outstanding},
                      {"segments", s.segments},
                      {"kind", std::string(pcap::to_string(s.kind))}});
  }
  return {{"sender", pcap::format_socket_addr(d.sender)},
          {"receiver", pcap::format_socket_addr(d.receiver)},
          {"data_segments", d.data_segments},
          {"retransmitted_segments", d.retransmitted_segments},
          {"bytes_sent", d.bytes_sent},
          {"bytes_acked", d.bytes_acked},
          {"duration_s", seconds(d.last_ack_ns - d.first_data_ns)},
          {"goodput_bytes_per_s", d.goodput_bytes_per_s},
          {"mss", d.mss ? nlohmann::json(*d.mss) : nlohmann::json()},
          {"timestamps", d.timestamps},
          {"stall_count", d.stalls.size()},
          {"stalls_by_kind", kinds},
          {"stalled_s", seconds(d.stalled_ns)},
          {"delayed_ack_timeout_ms",
           d.delayed_ack_timeout_ns ? nlohmann::json(millis(*d.delayed_ack_timeout_ns)) : nlohmann::json()},
          {"ack_every", std::string(pcap::to_string(d.ack_every))},
          {"prompt_acks", {{"one_segment", d.prompt_acks_one},
                           {"two_segments", d.prompt_acks_two},
                           {"more", d.prompt_acks_more}}},
          {"stalls", stalls}};
}

void print_json(const ScanCli& o, const pcap::FileScan& scan, std::ostream& out) {
  nlohmann::json flows = nlohmann::json::array();
  for (const pcap::FlowReport& f : scan.flows) {
    nlohmann::json dirs = nlohmann::json::array();
    for (const auto& d : f.directions) dirs.push_back(to_json(d, scan.first_ns));
    flows.push_back({{"a", pcap::format_socket_addr(f.key.a)},
                     {"b", pcap::format_socket_addr(f.key.b)},
                     {"packets", f.packets},
                     {"directions", dirs}});
  }
  const nlohmann::json j = {{"file", o.file},
                            {"threshold_ms", o.threshold_ms},
                            {"records", scan.records},
                            {"tcp_packets", scan.tcp_packets},
                            {"skipped", scan.skipped},
                            {"flows", flows}};
  out << j.dump(2) << '\n';
}

std::string ack_every_text(const pcap::DirectionReport& d) {
  const std::uint64_t prompt = d.prompt_acks_one + d.prompt_acks_two + d.prompt_acks_more;
  const std::string counts = fmt::format("{} of {} prompt ACKs cover 1 segment, {} cover 2, {} more",
                                         d.prompt_acks_one, prompt, d.prompt_acks_two,
                                         d.prompt_acks_more);
  switch (d.ack_every) {
    case pcap::AckEvery::every_second_segment: return "ACKs every second segment (" + counts + ")";
    case pcap::AckEvery::every_segment: return "ACKs every segment (" + counts + ")";
    case pcap::AckEvery::other: return "ACKs stretch over several segments (" + counts + ")";
    case pcap::AckEvery::unknown: break;
  }
  return "ACK pattern unknown (" + counts + ")";
}

void print_text(const ScanCli& o, const pcap::FileScan& scan, std::ostream& out) {
  std::uint64_t skipped = 0;
  std::string reasons;
  for (const auto& [reason, n] : scan.skipped) {
    skipped += n;
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, reason);
  }
  fmt::print(out, "{}: {} records, {} TCP segments{}, {} flows; stall threshold {} ms\n", o.file,
             scan.records, scan.tcp_packets, o.flows.empty() ? "" : " in matching flows",
             scan.flows.size(), o.threshold_ms);
  if (skipped > 0) fmt::print(out, "skipped {} frames: {}\n", skipped, reasons);
  for (const pcap::FlowReport& f : scan.flows) {
    if (f.directions.empty()) {
      fmt::print(out, "\nflow {} <-> {}: {} packets, no data\n", pcap::format_socket_addr(f.key.a),
                 pcap::format_socket_addr(f.key.b), f.packets);
    }
    for (const pcap::DirectionReport& d : f.directions) {
      const std::int64_t span = d.last_ack_ns - d.first_data_ns;
      fmt::print(out, "\nflow {}\n", direction_name(d));
      fmt::print(out, "  data: {} bytes in {} segments ({} retransmitted), {} acked\n", d.bytes_sent,
                 d.data_segments, d.retransmitted_segments, d.bytes_acked);
      fmt::print(out, "  goodput: {:.1f} KB/s ({:.3f} MiB/s) over {:.3f} s; MSS {}, timestamps {}\n",
                 d.goodput_bytes_per_s / 1e3, d.goodput_bytes_per_s / (1 << 20), seconds(span),
                 d.mss ? std::to_string(*d.mss) : "unknown", d.timestamps ? "on" : "off");
      std::string kinds;
      for (std::size_t k = 0; k < pcap::kStallKindCount; ++k) {
        if (d.stall_counts[k] == 0) continue;
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", d.stall_counts[k],
                             pcap::to_string(static_cast<pcap::StallKind>(k)));
      }
      fmt::print(out, "  stalls: {}{}, stalled {:.3f} s ({:.1f}% of the transfer)\n", d.stalls.size(),
                 kinds.empty() ? "" : " (" + kinds + ")", seconds(d.stalled_ns),
                 span > 0 ? 100.0 * static_cast<double>(d.stalled_ns) / static_cast<double>(span) : 0.0);
      fmt::print(out, "  receiver: {}; {}\n",
                 d.delayed_ack_timeout_ns
                     ? fmt::format("delayed-ACK timeout ~{:.1f} ms (median of {})",
                                   millis(*d.delayed_ack_timeout_ns), d.stall_counts[0])
                     : std::string("no delayed-ACK stall"),
                 ack_every_text(d));
      const std::size_t shown = std::min(d.stalls.size(), o.max_stalls);
      for (std::size_t i = 0; i < shown; ++i) {
        const pcap::Stall& s = d.stalls[i];
        fmt::print(out, "    #{:<4} t={:.6f} s  seq={:<10} {:9.3f} ms  {:<14} ({} segment{}, {} bytes outstanding)\n",
                   i + 1, seconds(s.start_ns - scan.first_ns), s.seq, millis(s.duration_ns()),
                   pcap::to_string(s.kind), s.segments, s.segments == 1 ? "" : "s", s.outstanding);
      }
      if (shown < d.stalls.size()) {
        fmt::print(out, "    ... {} more (--max-stalls, or --json for all)\n", d.stalls.size() - shown);
      }
    }
  }
}

}  // namespace

void add_scan_command(CLI::App& parent, Action& selected) {
  auto opt = std::make_shared<ScanCli>();
  CLI::App* cmd = parent.add_subcommand(
      "scan", "Find delayed-ACK stalls in a pcap capture: per flow, each stall, its kind and cost");
  cmd->add_option("file", opt->file, "capture file (classic pcap; Ethernet, Linux SLL/SLL2, raw IPv4, "
                                     "null loopback)")
      ->required();
  cmd->add_option("--threshold-ms", opt->threshold_ms,
                  "an idle sender waiting this long for an ACK is a stall (default 20)")
      ->check(CLI::Range(0.001, 3.6e6));
  cmd->add_option("--flow", opt->flows,
                  "only flows with this endpoint: ADDR, ADDR:PORT, :PORT or PATTERN-PATTERN "
                  "(repeatable; any may match)")
      ->check([](const std::string& v) {
        auto f = pcap::parse_flow_filter(v);
        return f ? std::string() : f.error().message();
      });
  cmd->add_option("--max-stalls", opt->max_stalls, "stalls listed per flow in text output (default 20)");
  cmd->add_flag("--json", opt->json, "print JSON (every stall) instead of text");
  cmd->callback([opt, &selected] {
    selected = [opt](Io io) {
      std::vector<pcap::FlowFilter> filters;
      for (const auto& f : opt->flows) filters.push_back(*pcap::parse_flow_filter(f));
      const auto threshold_ns = static_cast<std::int64_t>(opt->threshold_ms * 1e6);
      auto scan = pcap::scan_file(opt->file, {threshold_ns}, filters);
      if (!scan) return fail(io, scan.error());
      if (opt->json) {
        print_json(*opt, *scan, io.out);
      } else {
        print_text(*opt, *scan, io.out);
      }
      return kExitOk;
    };
  });
}

}  // namespace ackstall::tools
