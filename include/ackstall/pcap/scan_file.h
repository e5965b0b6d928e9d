// ackstall/pcap/scan_file.h — read (libpcap: pcap, pcapng, stdin) + decode + scan one capture
// (what `ackstall scan` and the benchmark run).
//
// Frames that are not TCP over IPv4/IPv6, or whose headers were not captured, are counted by
// what they are ("IPv6/UDP", "ARP", ...) and skipped. A file cut short is analysed up to the cut
// and `cut_short` names the record and offset. A corrupt record or block in the middle ends the
// scan: the records before it are analysed and `error` holds the one-line message. Errors
// (returned): the file cannot be opened (OS failure, Error::code = errno), is not a capture, has
// an unsupported link type, or the BPF filter does not compile (content errors, code 0).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/pcap/capture_source.h"
#include "ackstall/pcap/error.h"
#include "ackstall/pcap/flow_key.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

struct FileScan {
  std::string name;
  bool pcapng = false;
  std::uint64_t records = 0;  // every record read (before --filter)
  std::uint64_t matched = 0;  // records that passed the BPF filter
  std::int64_t first_ns = 0, last_ns = 0;  // timestamps of the first and last record read
  std::uint64_t tcp_packets = 0;
  std::map<std::string, std::uint64_t> skipped;  // what it was -> count
  std::vector<FlowReport> flows;                 // filtered
  std::optional<std::string> cut_short;          // warning: the record and offset of the cut
  std::uint64_t syn_options_cut = 0;             // SYNs whose TCP options the snaplen cut
  std::uint32_t syn_options_cut_snaplen = 0;     // the first one's captured length
  std::optional<Error> error;                    // a corrupt record mid-file (records before it kept)
  std::optional<CaptureStats> stats;             // live capture: libpcap's counters at the end
  std::optional<std::uint64_t> capture_drops;    // pcapng statistics: packets the capturer dropped
};

// How far a scan of files has come (ScanRequest::on_progress).
struct ScanProgress {
  std::uint64_t records = 0;               // read so far (across the files of a merge)
  std::int64_t first_ns = 0, last_ns = 0;  // the capture's time covered so far
};

struct ScanRequest {
  ScanOptions options;
  std::vector<FlowFilter> flows;  // keep flows matching any of them (all when empty)
  std::string bpf;                // libpcap filter expression, empty for none
  CaptureSource::Reader reader = CaptureSource::Reader::own;  // who reads a file
  // Files only: called every kProgressEvery records read (a terminal's progress line).
  std::function<void(const ScanProgress&)> on_progress;
  static constexpr std::uint64_t kProgressEvery = 1u << 14;
};

// `path` may be "-" for stdin.
Result<FileScan> scan_capture(const std::string& path, const ScanRequest& request);

// Several files read as one capture (a ring buffer, `dumpcap -b`): in the order of their first
// records' times, flows spanning files, frame numbers counted on across them (as mergecap -a
// would number them); the name joins the files' names.
Result<FileScan> scan_merged(const std::vector<std::string>& paths, const ScanRequest& request);

// A live capture on `iface` until `duration_s` seconds have passed (0: no limit) or `*stop` is
// set (Ctrl-C); request.options.on_stall sees each stall as it is found.
struct LiveRequest {
  ScanRequest scan;
  std::string iface;
  double duration_s = 0;
  const std::atomic<int>* stop = nullptr;
  std::function<void()> on_start;  // the capture is running (after the interface opened)
};
Result<FileScan> scan_live(const LiveRequest& request);

// Unchanged entry point (classic callers): `filters` as ScanRequest::flows.
Result<FileScan> scan_file(const std::filesystem::path& path, ScanOptions options = {},
                           const std::vector<FlowFilter>& filters = {});

// The direction that carried the most data (what scan --emit-scenario and --plot describe), or
// null when no flow has one.
const DirectionReport* busiest_direction(const FileScan& scan);

}  // namespace ackstall::pcap
