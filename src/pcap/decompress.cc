#include "decompress.h"

#include <fmt/format.h>
#include <lzma.h>
#define ZLIB_CONST  // z_stream::next_in is const (zlib.h)
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "ackstall/core/error.h"

namespace ackstall::pcap::detail {
namespace {

// The compressed bytes: HEAD (already read to tell the packing), then the rest of IN.
class Input {
 public:
  Input(std::span<const std::uint8_t> head, std::FILE* in) : head_(head), in_(in) {}
  // The next bytes; empty at the end of the input.
  std::span<const std::uint8_t> next() {
    if (!head_.empty()) return std::exchange(head_, {});
    return {buf_.data(), std::fread(buf_.data(), 1, buf_.size(), in_)};
  }
  bool failed() const { return std::ferror(in_) != 0; }

 private:
  std::span<const std::uint8_t> head_;
  std::FILE* in_;
  std::array<std::uint8_t, 1 << 16> buf_{};
};

tl::unexpected<Error> corrupt(const std::string& path, std::string_view what, std::string_view why) {
  return make_error(fmt::format("{}: {} stream is corrupt: {}", path, what, why));
}

Result<void> put(const std::string& path, std::span<const std::uint8_t> bytes, std::FILE* out) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size()) return {};
  return core::os_failure("", errno, fmt::format("{}: cannot write the decompressed capture: {}", path,
                                                 std::strerror(errno)));
}

// gzip (RFC 1952) through zlib's inflate: members one after another are one stream, and bytes
// after the last member that do not start another are left unread, as gzip(1) and zlib's gzread
// do; the input ending inside a member is "it ends early".
Result<void> gunzip(const std::string& path, Input& in, std::FILE* out) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return make_error(fmt::format("{}: cannot start the gzip decoder", path));
  std::array<std::uint8_t, 1 << 16> obuf{};
  std::span<const std::uint8_t> chunk;
  bool in_member = true;
  bool out_full = false;  // inflate filled obuf: it may hold more output without more input
  Result<void> done;
  for (;;) {
    if (chunk.empty() && !out_full) {
      chunk = in.next();
      if (chunk.empty()) {
        if (in.failed()) done = corrupt(path, "gzip", "it cannot be read");
        else if (in_member) done = corrupt(path, "gzip", "it ends early");
        break;
      }
      if (!in_member) {
        if (chunk.size() < 2 || chunk[0] != 0x1f || chunk[1] != 0x8b) break;  // not another member
        inflateReset(&z);
        in_member = true;
      }
    }
    z.next_in = chunk.data();
    z.avail_in = static_cast<uInt>(chunk.size());
    z.next_out = obuf.data();
    z.avail_out = static_cast<uInt>(obuf.size());
    const int r = inflate(&z, Z_NO_FLUSH);
    chunk = chunk.last(z.avail_in);
    out_full = z.avail_out == 0;
    if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
      done = corrupt(path, "gzip", z.msg != nullptr ? z.msg : fmt::format("zlib code {}", r));
      break;
    }
    if (done = put(path, std::span(obuf).first(obuf.size() - z.avail_out), out); !done) break;
    if (r == Z_STREAM_END) {
      in_member = false;
      out_full = false;
      if (!chunk.empty()) {
        if (chunk.size() < 2 || chunk[0] != 0x1f || chunk[1] != 0x8b) break;
        inflateReset(&z);
        in_member = true;
      }
    }
  }
  inflateEnd(&z);
  return done;
}

// xz (the .xz file format) through liblzma; concatenated streams are one (LZMA_CONCATENATED).
Result<void> unxz(const std::string& path, Input& in, std::FILE* out) {
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    return make_error(fmt::format("{}: cannot start the xz decoder", path));
  }
  std::array<std::uint8_t, 1 << 16> obuf{};
  lzma_action action = LZMA_RUN;
  s.next_out = obuf.data();
  s.avail_out = obuf.size();
  Result<void> done;
  for (;;) {
    if (s.avail_in == 0 && action == LZMA_RUN) {
      const auto chunk = in.next();
      s.next_in = chunk.data();
      s.avail_in = chunk.size();
      if (chunk.empty()) action = LZMA_FINISH;
    }
    const lzma_ret r = lzma_code(&s, action);
    if (s.avail_out == 0 || r == LZMA_STREAM_END) {
      if (done = put(path, std::span(obuf).first(obuf.size() - s.avail_out), out); !done) break;
      s.next_out = obuf.data();
      s.avail_out = obuf.size();
    }
    if (r == LZMA_STREAM_END) break;
    if (r != LZMA_OK) {
      done = corrupt(path, "xz", r == LZMA_BUF_ERROR ? "it ends early" : fmt::format("liblzma code {}", static_cast<int>(r)));
      break;
    }
  }
  lzma_end(&s);
  return done;
}

}  // namespace

Packing packing_of(std::span<const std::uint8_t> head) {
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Packing::gzip;
  static constexpr std::array<std::uint8_t, kMagicBytes> kXz = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  if (std::ranges::equal(head, kXz)) return Packing::xz;
  return Packing::none;
}

Result<FilePtr> decompress(const std::string& name, Packing packing, std::span<const std::uint8_t> head,
                           std::FILE* in) {
  FilePtr out(std::tmpfile());
  if (!out) return core::os_failure("", errno, fmt::format("{}: no temporary file to decompress into: {}", name,
                                                          std::strerror(errno)));
  Input input(head, in);
  const auto done = packing == Packing::gzip ? gunzip(name, input, out.get()) : unxz(name, input, out.get());
  if (!done) return tl::unexpected(done.error());
  std::rewind(out.get());
  return out;
}

Result<FilePtr> open_decompressed(const std::string& path) {
  FilePtr in(std::fopen(path.c_str(), "rb"));
  if (!in) return core::os_failure("", errno, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::array<std::uint8_t, kMagicBytes> head{};
  const auto got = std::span(head).first(std::fread(head.data(), 1, head.size(), in.get()));
  const Packing packing = packing_of(got);
  if (packing == Packing::none) return FilePtr{};
  return decompress(path, packing, got, in.get());
}

}  // namespace ackstall::pcap::detail
