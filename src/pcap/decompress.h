// Internal: compressed captures (gzip, xz), read as tshark reads them: the file's first bytes
// tell (gzip: 1f 8b, RFC 1952 §2.3.1; xz: fd 37 7a 58 5a 00, the .xz file format §2.1.1.1), and
// the capture is decompressed into an anonymous temporary file that the readers then read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>

#include "ackstall/pcap/error.h"

namespace ackstall::pcap::detail {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept {
    if (f != nullptr) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// The decompressed capture at offset 0 when `path` is gzip or xz; a null FilePtr when it is
// neither (read it as it is). Errors: the file cannot be opened, or its stream is corrupt.
Result<FilePtr> open_decompressed(const std::string& path);

// How a capture is packed, told by its first kMagicBytes bytes (fewer when it is shorter).
enum class Packing { none, gzip, xz };
inline constexpr std::size_t kMagicBytes = 6;
Packing packing_of(std::span<const std::uint8_t> head);

// A stream that cannot be read twice (a pipe, a FIFO, stdin): HEAD, the bytes already read from
// it, then the rest of IN, decompressed as PACKING (gzip or xz) into a temporary file at offset 0.
// `name` is for the messages.
Result<FilePtr> decompress(const std::string& name, Packing packing, std::span<const std::uint8_t> head,
                           std::FILE* in);

}  // namespace ackstall::pcap::detail
