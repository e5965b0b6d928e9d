// libFuzzer target: the pcap file reader on arbitrary bytes, with every record decoded and fed
// to the stall scanner, then the report built — the whole `ackstall scan` path minus printing.
// Checks, beyond "no crash, no UB": every error is one non-empty line naming the input, and
// after an error the reader keeps failing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/stall_scanner.h"

using namespace ackstall::pcap;

namespace {

void check_message(const Error& e) {
  const std::string m = e.message();
  if (m.rfind("in: ", 0) != 0 || m.find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto reader = FileReader::from_memory(std::span(data, size), "in");
  if (!reader) {
    check_message(reader.error());
    return 0;
  }
  StallScanner scanner({.threshold = std::chrono::milliseconds(1), .on_stall = {}});
  const LinkType link = reader->header().link;
  for (int i = 0; i < 100000; ++i) {
    auto rec = reader->next();
    if (!rec) {
      check_message(rec.error());
      if (reader->next()) std::abort();
      break;
    }
    if (!*rec) break;
    auto frame = decode_frame(link, (*rec)->data, (*rec)->orig_len, (*rec)->time_ns);
    if (frame) scanner.add(frame->packet);
  }
  const auto flows = scanner.report();
  for (const auto& f : flows) {
    for (const auto& d : f.directions) {
      std::int64_t total = 0;
      for (const auto& s : d.stalls) total += s.duration_ns();
      if (total != d.stalled_ns || d.bytes_acked > d.bytes_sent) std::abort();
    }
  }
  return 0;
}
