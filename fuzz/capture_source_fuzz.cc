// libFuzzer target: a capture through CaptureSource (pcap and pcapng, every block type, byte
// order and option), read by the project's FileReader and again by libpcap's, with an optional
// BPF filter, every record decoded and fed to the stall scanner, then the report built —
// `ackstall scan` minus printing.
// Input: "#bpf EXPRESSION\n" first (optional: the filter, compiled as tcpdump would), then the
// capture's bytes. Checks, beyond "no crash, no UB": every error is one non-empty line naming
// the input ("in: ...") or the filter ("'EXPRESSION': ..."); a cut or an error ends the records.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "ackstall/pcap/capture_source.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/stall_scanner.h"

using namespace ackstall::pcap;

namespace {

void check_message(const Error& e) {
  const std::string m = e.message();
  const bool named = m.rfind("in: ", 0) == 0 || m.rfind("'", 0) == 0;
  if (!named || m.find('\n') != std::string::npos) std::abort();
}

void read_all(std::span<const std::uint8_t> bytes, const std::string& bpf, CaptureSource::Reader reader) {
  auto source = CaptureSource::open_memory(bytes, "in", bpf, reader);
  if (!source) {
    check_message(source.error());
    return;
  }
  StallScanner scanner({.threshold = std::chrono::milliseconds(1), .on_stall = {}});
  for (int i = 0; i < 100000; ++i) {
    auto rec = source->next();
    if (!rec) {
      check_message(rec.error());
      break;
    }
    if (!*rec) {
      if (source->cut_short() && source->cut_short()->rfind("in: ", 0) != 0) std::abort();
      break;
    }
    if ((*rec)->number != source->records_read()) std::abort();
    auto frame = decode_frame(source->link(), (*rec)->data, (*rec)->orig_len, (*rec)->time_ns);
    if (frame) scanner.add(frame->packet, frame->src, frame->dst, (*rec)->number);
  }
  for (const auto& f : scanner.report()) {
    for (const auto& d : f.directions) {
      std::int64_t total = 0;
      for (const auto& s : d.stalls) total += s.duration_ns();
      if (total != d.stalled_ns || d.bytes_acked > d.bytes_sent) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string bpf;
  if (text.starts_with("#bpf ")) {
    const auto nl = text.find('\n');
    if (nl == std::string_view::npos) return 0;
    bpf = std::string(text.substr(5, nl - 5));
    if (bpf.find('\0') != std::string::npos) return 0;  // not a C string
    if (auto ok = check_bpf(bpf); !ok) {
      check_message(ok.error());
      return 0;
    }
    data += nl + 1;
    size -= nl + 1;
  }
  for (const auto reader : {CaptureSource::Reader::own, CaptureSource::Reader::libpcap}) {
    read_all(std::span(data, size), bpf, reader);
  }
  return 0;
}
