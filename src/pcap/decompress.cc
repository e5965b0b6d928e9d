#include "decompress.h"

#include <fmt/format.h>
#include <lzma.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "ackstall/core/error.h"

namespace ackstall::pcap::detail {
namespace {

enum class Kind { none, gzip, xz };

Kind sniff(std::FILE* f) {
  std::array<unsigned char, 6> m{};
  const std::size_t n = std::fread(m.data(), 1, m.size(), f);
  std::rewind(f);
  if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) return Kind::gzip;
  static constexpr std::array<unsigned char, 6> kXz = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  if (n == 6 && m == kXz) return Kind::xz;
  return Kind::none;
}

tl::unexpected<Error> corrupt(const std::string& path, std::string_view what, std::string_view why) {
  return make_error(fmt::format("{}: {} stream is corrupt: {}", path, what, why));
}

Result<FilePtr> gunzip(const std::string& path, FilePtr out) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) return core::os_failure("", errno, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::array<char, 1 << 16> buf{};
  for (;;) {
    const int n = gzread(in, buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(in, &code);
      gzclose(in);
      return corrupt(path, "gzip", why);
    }
    if (n == 0) {
      // zlib reports a stream cut short as Z_BUF_ERROR once the data ends (zlib.h, gzread).
      int code = Z_OK;
      gzerror(in, &code);
      if (code == Z_BUF_ERROR) {
        gzclose(in);
        return corrupt(path, "gzip", "it ends early");
      }
      break;
    }
    if (std::fwrite(buf.data(), 1, static_cast<std::size_t>(n), out.get()) != static_cast<std::size_t>(n)) {
      gzclose(in);
      return core::os_failure("", errno, fmt::format("{}: cannot write the decompressed capture: {}", path,
                                                     std::strerror(errno)));
    }
  }
  gzclose(in);
  return out;
}

Result<FilePtr> unxz(const std::string& path, std::FILE* in, FilePtr out) {
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    return make_error(fmt::format("{}: cannot start the xz decoder", path));
  }
  std::array<std::uint8_t, 1 << 16> ibuf{}, obuf{};
  lzma_action action = LZMA_RUN;
  s.next_out = obuf.data();
  s.avail_out = obuf.size();
  for (;;) {
    if (s.avail_in == 0 && action == LZMA_RUN) {
      s.next_in = ibuf.data();
      s.avail_in = std::fread(ibuf.data(), 1, ibuf.size(), in);
      if (std::feof(in) != 0) action = LZMA_FINISH;
    }
    const lzma_ret r = lzma_code(&s, action);
    if (s.avail_out == 0 || r == LZMA_STREAM_END) {
      const std::size_t n = obuf.size() - s.avail_out;
      if (std::fwrite(obuf.data(), 1, n, out.get()) != n) {
        lzma_end(&s);
        return core::os_failure("", errno, fmt::format("{}: cannot write the decompressed capture: {}", path,
                                                       std::strerror(errno)));
      }
      s.next_out = obuf.data();
      s.avail_out = obuf.size();
    }
    if (r == LZMA_STREAM_END) break;
    if (r != LZMA_OK) {
      lzma_end(&s);
      return corrupt(path, "xz", r == LZMA_BUF_ERROR ? "it ends early" : fmt::format("liblzma code {}", static_cast<int>(r)));
    }
  }
  lzma_end(&s);
  return out;
}

}  // namespace

Result<FilePtr> open_decompressed(const std::string& path) {
  FilePtr in(std::fopen(path.c_str(), "rb"));
  if (!in) return core::os_failure("", errno, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  const Kind kind = sniff(in.get());
  if (kind == Kind::none) return FilePtr{};
  FilePtr out(std::tmpfile());
  if (!out) return core::os_failure("", errno, fmt::format("{}: no temporary file to decompress into: {}", path,
                                                          std::strerror(errno)));
  auto done = kind == Kind::gzip ? gunzip(path, std::move(out)) : unxz(path, in.get(), std::move(out));
  if (!done) return done;
  std::rewind(done->get());
  return done;
}

}  // namespace ackstall::pcap::detail
