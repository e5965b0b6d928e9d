#include "ackstall/pcap/scan_file.h"

#include <algorithm>
#include <string>

#include "ackstall/pcap/capture_source.h"
#include "ackstall/pcap/frame_decoder.h"

namespace ackstall::pcap {

Result<FileScan> scan_capture(const std::string& path, const ScanRequest& request) {
  auto source = CaptureSource::open(path, request.bpf);
  if (!source) return tl::unexpected(source.error());
  FileScan scan;
  scan.name = path;
  scan.pcapng = source->pcapng();
  StallScanner scanner(request.options);
  const LinkType link = source->link();
  const auto& filters = request.flows;
  while (true) {
    auto rec = source->next();
    if (!rec) {
      scan.error = rec.error();
      break;
    }
    if (!*rec) break;
    const Record& r = **rec;
    if (scan.matched++ == 0) scan.first_ns = r.time_ns;
    scan.last_ns = r.time_ns;
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
    scanner.add(frame->packet, frame->src, frame->dst, r.number);
  }
  scan.records = source->records_read();
  scan.cut_short = source->cut_short();
  scan.flows = scanner.report();
  return scan;
}

Result<FileScan> scan_file(const std::filesystem::path& path, ScanOptions options,
                           const std::vector<FlowFilter>& filters) {
  return scan_capture(path.string(), {options, filters, {}});
}

}  // namespace ackstall::pcap
