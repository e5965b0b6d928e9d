// ackstall/pcap/file_reader.h — reads capture files, classic pcap and pcapng, streaming: read(2)
// into a 1 MiB window, records handed out in place. The project's own reader, which `ackstall
// scan` uses for files and stdin because it is faster than libpcap's (docs/BENCHMARKS.md, "scan vs
// tshark": libpcap copies every record twice more, through stdio and into its own buffer). libpcap (CaptureSource) reads live captures and
// compiles --filter; tests/pcap/capture_source_test.cc checks both readers give the same records.
//
// Classic pcap: microsecond (0xa1b2c3d4) and nanosecond (0xa1b23c4d) magics in either byte
// order, version 2.x. pcapng (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-02.html):
// sections in either byte order, Interface Description Blocks with if_tsresol and if_tsoffset,
// Enhanced, Simple and (obsolete) Packet Blocks; every other block type is skipped. Link types
// are those of link_type.h, one per file (every interface the same, as the scanner decodes one).
// Records come one at a time; a Record's `data` stays valid until the next call to next().
// Memory: one window of 1 MiB (more only for a larger block), or none from memory (`data` points
// into the caller's bytes).
//
// Errors are values with one line naming the file, the record (1-based) and its byte offset, and
// the field: e.g. "x.pcap: record 7 (offset 1234): incl_len 300000 exceeds 262144",
// "x.pcap: record 9 (offset 2048): truncated: record header has 7 of 16 bytes". A file that ends exactly
// after a record (or block) ends cleanly (next() returns nullopt); one that ends inside one is an
// error with truncated() true — a capture cut short, which callers may report as a warning.
// After an error next() keeps failing.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/link_type.h"

namespace ackstall::pcap {

struct FileHeader {
  std::uint16_t version_major = 2;
  std::uint16_t version_minor = 4;
  std::uint32_t snaplen = 0;
  std::uint32_t network = 0;  // raw link-type field
  LinkType link = LinkType::ethernet;
  bool nanosecond = false;
  bool swapped = false;  // written in the other byte order than this host's (classic pcap)
  bool pcapng = false;   // pcapng: `link`, `network` and `snaplen` are the first interface's
};

struct Record {
  std::uint64_t number = 0;  // 1-based
  std::int64_t time_ns = 0;
  std::uint32_t orig_len = 0;
  std::span<const std::uint8_t> data;  // incl_len captured bytes
};

class FileReader {
 public:
  static Result<FileReader> open(const std::filesystem::path& path);
  // Reads an open stream (stdin, a pipe), closed with the reader unless it is stdin; `head` are
  // bytes already read from it (to tell its packing), read first.
  static Result<FileReader> from_stream(std::FILE* file, std::string name,
                                        std::span<const std::uint8_t> head = {});
  // Reads from caller-owned bytes that must outlive the reader.
  static Result<FileReader> from_memory(std::span<const std::uint8_t> bytes,
                                        std::string name = "<memory>");

  FileReader(FileReader&&) noexcept;
  FileReader& operator=(FileReader&&) noexcept;
  ~FileReader();

  const FileHeader& header() const noexcept { return header_; }
  const std::string& name() const noexcept { return name_; }
  // The next record, nullopt at a clean end of file.
  Result<std::optional<Record>> next();
  // The last error was the input ending inside a record or block (a capture cut short).
  bool truncated() const noexcept { return truncated_; }
  std::uint64_t records_read() const noexcept { return records_; }
  // pcapng: the packets the capturing system dropped, from the Interface Statistics Blocks read
  // so far (the latest block per interface: isb_ifdrop + isb_osdrop, pcapng §4.6); nullopt when
  // no block gave a count (classic pcap has none).
  std::optional<std::uint64_t> capture_drops() const;

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const noexcept;
  };
  struct Interface {  // a pcapng Interface Description Block
    LinkType link = LinkType::ethernet;
    std::uint32_t snaplen = 0;
    std::uint8_t tsresol = 6;  // if_tsresol: 10^-n s, or 2^-n s with the high bit set
    std::int64_t tsoffset_s = 0;
    std::optional<std::uint64_t> drops;  // the latest statistics block's isb_ifdrop + isb_osdrop
  };
  void read_statistics(std::span<const std::uint8_t> block);
  FileReader(std::string name, std::unique_ptr<std::FILE, FileCloser> file,
             std::span<const std::uint8_t> memory);
  // The window over the input: up to `n` contiguous bytes from the read position (fewer only at
  // the end of the input), valid until the next peek; consume() moves the read position.
  // (Both inline: they run several times a record; the refill is out of line.)
  std::span<const std::uint8_t> peek(std::size_t n) {
    if (!file_) return memory_.subspan(pos_, std::min(n, memory_.size() - pos_));
    if (end_ - pos_ < n && !input_ended_) refill(n);
    return {window_.data() + pos_, std::min(n, end_ - pos_)};
  }
  void consume(std::size_t n) noexcept {
    pos_ += n;
    offset_ += n;
  }
  // File input: moves the unconsumed bytes to the window's start and reads until `n` are there or
  // the input ends.
  void refill(std::size_t n);
  static Result<FileReader> from_file(std::unique_ptr<std::FILE, FileCloser> file, std::string name,
                                      std::span<const std::uint8_t> head = {});
  Result<void> read_file_header();
  Result<void> read_pcapng_start();
  Result<std::optional<Record>> next_classic();
  Result<std::optional<Record>> next_pcapng();
  Result<void> read_section_header(std::span<const std::uint8_t> block);
  Result<void> read_interface(std::span<const std::uint8_t> block);
  Result<std::span<const std::uint8_t>> pcapng_block();  // the next whole block; empty at the end
  // Loads in the input's byte order (classic: the file header's; pcapng: the section's).
  std::uint16_t u16(const std::uint8_t* p) const noexcept {
    std::uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return little_ == (std::endian::native == std::endian::little) ? v : static_cast<std::uint16_t>(v >> 8 | v << 8);
  }
  std::uint32_t u32(const std::uint8_t* p) const noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return little_ == (std::endian::native == std::endian::little) ? v : __builtin_bswap32(v);
  }
  tl::unexpected<Error> fail(std::string message, bool truncated = false);
  std::string where() const;

  std::string name_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::span<const std::uint8_t> memory_;
  std::vector<std::uint8_t> window_;    // file input: bytes [pos_, end_) not yet consumed
  std::size_t pos_ = 0, end_ = 0;       // (from memory: pos_ indexes memory_)
  bool input_ended_ = false;
  FileHeader header_;
  bool little_ = true;                  // the input's byte order (pcapng: the current section's)
  std::vector<Interface> interfaces_;   // the current section's
  std::optional<std::uint64_t> earlier_sections_drops_;  // sections before the current one
  bool first_interface_read_ = false;   // header_ holds the file's first interface
  std::uint64_t offset_ = 0;  // bytes consumed so far
  std::uint64_t records_ = 0;
  std::optional<Error> failed_;
  bool truncated_ = false;
};

}  // namespace ackstall::pcap
