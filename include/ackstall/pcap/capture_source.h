// ackstall/pcap/capture_source.h — capture records from a file, stdin or a live interface:
// classic pcap (microsecond and nanosecond), pcapng, "-" for stdin, and a BPF filter compiled by
// libpcap exactly as tcpdump compiles it. Files and stdin are read by the project's FileReader
// (records in place; libpcap's savefile reader on request, Reader::libpcap), live interfaces by libpcap.
//
// Records come one at a time with their 1-based frame number as Wireshark's frame.number: the
// BPF filter is applied here (pcap_offline_filter), after counting, so frame numbers do not
// shift when a filter is given. A Record's `data` stays valid until the next call to next().
//
// A file cut short (its last record incomplete) ends with next() returning nullopt and
// `cut_short()` holding one line naming the record and its byte offset, so callers analyse
// everything before the cut (as tshark does). Any other error in the middle of a file (a corrupt
// pcapng block, a link type that changes between interfaces) is an error naming the record and
// offset; the records before it stay analysed by the caller.
// Errors: a file that cannot be opened is an OS failure (Error::code = errno); a file that is not a
// capture, an unsupported link type or a bad BPF expression is a content error (code 0).
#pragma once

#include <cstdint>
#include <memory>
#include <cstdio>
#include <optional>
#include <span>
#include <string>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/link_type.h"

namespace ackstall::pcap {

// libpcap's counters of a live capture (pcap_stats): packets the filter passed, dropped for
// want of buffer space in libpcap/the kernel, dropped by the interface or its driver.
struct CaptureStats {
  std::uint64_t received = 0, dropped = 0, if_dropped = 0;
};

class CaptureSource {
 public:
  // Who reads a file: the project's FileReader (the default: records in place, faster) or libpcap's
  // savefile reader (kept to check one against the other, and to measure them).
  enum class Reader : std::uint8_t { own, libpcap };
  // Whether `name` can be read only once, from its start: "-" (stdin), or a path naming a FIFO,
  // a pipe (bash's <(...)) or a character device rather than a file. Such a source is opened
  // once (its packing told from the bytes kept); what reads a capture twice refuses it.
  static bool reads_once(const std::string& name);
  // `name` is a path or "-" (stdin). `bpf` may be empty (no filter).
  static Result<CaptureSource> open(const std::string& name, const std::string& bpf = {}, Reader reader = Reader::own);
  // The same from caller-owned bytes (they must outlive the source), read as file `name`: for the
  // fuzz target and tests.
  static Result<CaptureSource> open_memory(std::span<const std::uint8_t> bytes, const std::string& name,
                                           const std::string& bpf = {}, Reader reader = Reader::own);
  // A live capture on interface `iface` (headers only: 256 bytes a packet, immediate delivery,
  // the filter in the kernel). Errors name the interface and what is missing: no such
  // interface, or no permission (root or CAP_NET_RAW). next() returns nullopt when no packet
  // came within `poll_ms` (then check ended()/your clock and call again).
  static Result<CaptureSource> open_live(const std::string& iface, const std::string& bpf = {}, int poll_ms = 100);
  CaptureSource(CaptureSource&&) noexcept;
  CaptureSource& operator=(CaptureSource&&) noexcept;
  ~CaptureSource();

  const std::string& name() const noexcept { return name_; }
  LinkType link() const noexcept { return link_; }
  bool pcapng() const noexcept { return pcapng_; }
  // The next record that passes the filter; nullopt at the end (or at a cut, see cut_short()).
  Result<std::optional<Record>> next();
  const std::optional<std::string>& cut_short() const noexcept { return cut_short_; }
  std::uint64_t records_read() const noexcept { return frame_; }
  bool live() const noexcept { return live_; }
  bool ended() const noexcept { return ended_; }  // a file's end (or cut); never for a live capture
  std::optional<CaptureStats> stats() const;      // live only
  // A file's own count of packets its capturer dropped (pcapng statistics; the project's reader).
  std::optional<std::uint64_t> capture_drops() const;

 private:
  struct Impl;
  explicit CaptureSource(std::unique_ptr<Impl> impl, std::string name, LinkType link, bool pcapng);
  static Result<CaptureSource> with_reader(FileReader reader, const std::string& bpf);
  Result<std::optional<Record>> next_from_reader();
  static Result<CaptureSource> open_file(std::FILE* file, const std::string& name, const std::string& bpf,
                                         std::unique_ptr<char[]> stdio_buffer = {});
  std::unique_ptr<Impl> impl_;
  std::string name_;
  LinkType link_ = LinkType::ethernet;
  bool pcapng_ = false;
  std::uint64_t frame_ = 0;
  std::uint64_t offset_ = 0;  // byte offset of the next record (classic pcap; pcapng via ftell)
  std::optional<std::string> cut_short_;
  bool live_ = false, ended_ = false;
  bool nano_ = true;
  int poll_ms_ = 100;  // timestamps in ns (else us: a live capture without nanosecond support)
};

// Compiles `bpf` for an Ethernet link as a syntax check (tcpdump's grammar); the error names it.
Result<void> check_bpf(const std::string& bpf);

}  // namespace ackstall::pcap
