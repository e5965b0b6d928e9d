#include "ackstall/pcap/scan_file.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ackstall/pcap/capture_source.h"
#include "ackstall/pcap/frame_decoder.h"

namespace ackstall::pcap {

namespace {

// Reads records from `source` into `scan` until the source has none (a file's end or cut, a
// live capture's quiet poll) or `keep_going` says stop; false on a mid-file error (kept in scan).
template <class KeepGoing>
bool consume(CaptureSource& source, const ScanRequest& request, StallScanner& scanner, FileScan& scan,
             KeepGoing&& keep_going, std::uint64_t frame_offset = 0) {
  const LinkType link = source.link();
  const auto& filters = request.flows;
  while (keep_going()) {
    auto rec = source.next();
    if (!rec) {
      scan.error = rec.error();
      return false;
    }
    if (!*rec) return true;
    const Record& r = **rec;
    if (scan.matched++ == 0) scan.first_ns = r.time_ns;
    scan.last_ns = r.time_ns;
    if (request.on_progress && (r.number % ScanRequest::kProgressEvery) == 0) {
      request.on_progress({frame_offset + r.number, scan.first_ns, scan.last_ns});
    }
    auto frame = decode_frame(link, r.data, r.orig_len, r.time_ns);
    if (!frame) {
      scan.skipped[std::string(frame.error().reason)]++;
      continue;
    }
    if (!filters.empty()) {
      const FlowKey key = make_flow_key(frame->src, frame->dst);
      if (std::none_of(filters.begin(), filters.end(),
                       [&key](const FlowFilter& f) { return f.matches(key); })) {
        continue;
      }
    }
    scan.tcp_packets++;
    if (frame->options_truncated && frame->packet.has(tcp_flag::syn) && scan.syn_options_cut++ == 0) {
      scan.syn_options_cut_snaplen = static_cast<std::uint32_t>(r.data.size());
    }
    scanner.add(frame->packet, frame->src, frame->dst, frame_offset + r.number, frame->ttl, frame->ip_id);
  }
  return true;
}

}  // namespace

Result<FileScan> scan_capture(const std::string& path, const ScanRequest& request) {
  auto source = CaptureSource::open(path, request.bpf, request.reader);
  if (!source) return tl::unexpected(source.error());
  FileScan scan;
  scan.name = path;
  scan.pcapng = source->pcapng();
  StallScanner scanner(request.options);
  consume(*source, request, scanner, scan, [] { return true; });
  scan.records = source->records_read();
  scan.cut_short = source->cut_short();
  scan.capture_drops = source->capture_drops();
  scan.flows = scanner.take_report();
  return scan;
}

Result<FileScan> scan_merged(const std::vector<std::string>& paths, const ScanRequest& request) {
  // The files in the order of their first records' times (a ring buffer's files may be named in
  // any order); a file without a record goes last.
  std::vector<std::pair<std::int64_t, std::string>> order;
  for (const std::string& p : paths) {
    auto source = CaptureSource::open(p, "", request.reader);
    if (!source) return tl::unexpected(source.error());
    auto first = source->next();
    const std::int64_t t = first && *first ? (*first)->time_ns : std::numeric_limits<std::int64_t>::max();
    order.emplace_back(t, p);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  FileScan scan;
  StallScanner scanner(request.options);
  std::uint64_t offset = 0;
  for (const auto& [t, p] : order) {
    auto source = CaptureSource::open(p, request.bpf, request.reader);
    if (!source) return tl::unexpected(source.error());
    scan.name += (scan.name.empty() ? "" : " + ") + p;
    scan.pcapng = scan.pcapng || source->pcapng();
    const bool ok = consume(*source, request, scanner, scan, [] { return true; }, offset);
    offset += source->records_read();
    if (source->cut_short() && !scan.cut_short) scan.cut_short = *source->cut_short();
    if (auto d = source->capture_drops()) scan.capture_drops = scan.capture_drops.value_or(0) + *d;
    if (!ok) break;
  }
  scan.records = offset;
  scan.flows = scanner.take_report();
  return scan;
}

Result<FileScan> scan_live(const LiveRequest& request) {
  auto source = CaptureSource::open_live(request.iface, request.scan.bpf);
  if (!source) return tl::unexpected(source.error());
  if (request.on_start) request.on_start();
  FileScan scan;
  scan.name = request.iface;
  StallScanner scanner(request.scan.options);
  const auto t0 = std::chrono::steady_clock::now();
  const auto keep_going = [&] {
    if (request.stop && request.stop->load() != 0) return false;
    return request.duration_s <= 0 ||
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < request.duration_s;
  };
  while (keep_going()) {
    if (!consume(*source, request.scan, scanner, scan, keep_going)) break;
  }
  scan.records = source->records_read();
  scan.stats = source->stats();
  scan.flows = scanner.take_report();
  return scan;
}

Result<FileScan> scan_file(const std::filesystem::path& path, ScanOptions options,
                           const std::vector<FlowFilter>& filters) {
  return scan_capture(path.string(), {options, filters, {}, CaptureSource::Reader::own, {}});
}

const DirectionReport* busiest_direction(const FileScan& scan) {
  const DirectionReport* best = nullptr;
  for (const auto& f : scan.flows) {
    for (const auto& d : f.directions) {
      if (best == nullptr || d.bytes_sent > best->bytes_sent) best = &d;
    }
  }
  return best;
}

}  // namespace ackstall::pcap
