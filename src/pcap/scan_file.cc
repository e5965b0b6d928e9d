#include "ackstall/pcap/scan_file.h"

#include <algorithm>
#include <string>

#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"

namespace ackstall::pcap {

Result<FileScan> scan_file(const std::filesystem::path& path, ScanOptions options,
                           const std::vector<FlowFilter>& filters) {
  auto reader = FileReader::open(path);
  if (!reader) return tl::unexpected(reader.error());
  FileScan scan;
  StallScanner scanner(options);
  const LinkType link = reader->header().link;
  while (true) {
    auto rec = reader->next();
    if (!rec) return tl::unexpected(rec.error());
    if (!*rec) break;
    const Record& r = **rec;
    if (scan.records++ == 0) scan.first_ns = r.time_ns;
    scan.last_ns = r.time_ns;
    auto frame = decode_frame(link, r.data, r.orig_len, r.time_ns);
    if (!frame) {
      scan.skipped[std::string(frame.error().reason)]++;
      continue;
    }
    if (!filters.empty()) {
      const FlowKey key = flow_key_of(frame->packet);
      if (std::none_of(filters.begin(), filters.end(),
                       [&key](const FlowFilter& f) { return f.matches(key); })) {
        continue;
      }
    }
    scan.tcp_packets++;
    scanner.add(frame->packet);
  }
  scan.flows = scanner.report();
  return scan;
}

}  // namespace ackstall::pcap
