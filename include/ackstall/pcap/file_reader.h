// ackstall/pcap/file_reader.h — reads classic pcap files (not pcapng), streaming.
//
// Accepts microsecond (0xa1b2c3d4) and nanosecond (0xa1b23c4d) magics in either byte order,
// version 2.x, and the link types of link_type.h. Records are returned one at a time; a Record's
// `data` stays valid until the next call to next(). Memory: one buffer of at most kMaxSnaplen
// bytes (from a file), or none (from memory: `data` points into the caller's bytes).
//
// Errors are values with one line naming the file, the record (1-based) and its byte offset, and
// the field: e.g. "x.pcap: record 7 (offset 1234): incl_len 300000 exceeds 262144",
// "x.pcap: truncated: record 9 (offset 2048) header has 7 of 16 bytes". A file that ends exactly
// after a record ends cleanly (next() returns nullopt). After an error next() keeps failing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
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
  bool swapped = false;  // written in the other byte order than this host's
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

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const noexcept;
  };
  FileReader(std::string name, std::unique_ptr<std::FILE, FileCloser> file,
             std::span<const std::uint8_t> memory);
  std::size_t read_into(std::uint8_t* out, std::size_t n);
  Result<void> read_file_header();
  std::string where() const;

  std::string name_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::span<const std::uint8_t> memory_;
  std::size_t memory_pos_ = 0;
  std::vector<std::uint8_t> buffer_;
  FileHeader header_;
  std::uint64_t offset_ = 0;  // bytes consumed so far
  std::uint64_t records_ = 0;
  std::optional<Error> failed_;
};

}  // namespace ackstall::pcap
