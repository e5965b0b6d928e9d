#include "ackstall/pcap/file_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "ackstall/pcap/writer.h"
#include "bytes.h"

namespace ackstall::pcap {
namespace {

// Classic pcap (https://www.tcpdump.org/manpages/pcap-savefile.5.html) and the pcapng SHB magic.

constexpr std::uint32_t kMicroMagic = 0xa1b2c3d4;
constexpr std::uint32_t kNanoMagic = 0xa1b23c4d;
constexpr std::uint32_t kPcapngMagic = 0x0a0d0d0a;
constexpr std::uint32_t kKuznetzovMagic = 0xa1b2cd34;
constexpr std::size_t kFileHeaderLen = 24;
constexpr std::size_t kRecordHeaderLen = 16;
constexpr std::size_t kWindowBytes = std::size_t{1} << 20;

}  // namespace

void FileReader::FileCloser::operator()(std::FILE* f) const noexcept {
  if (f != stdin) std::fclose(f);
}

FileReader::FileReader(std::string name, std::unique_ptr<std::FILE, FileCloser> file,
                       std::span<const std::uint8_t> memory)
    : name_(std::move(name)), file_(std::move(file)), memory_(memory) {}

FileReader::FileReader(FileReader&&) noexcept = default;
FileReader& FileReader::operator=(FileReader&&) noexcept = default;
FileReader::~FileReader() = default;

Result<FileReader> FileReader::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return make_error(fmt::format("{}: is a directory, not a pcap file", path.string()));
  }
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    return core::os_failure("", errno, fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  // A regular file is read(2) into the window like a stream, not mapped: the mapping's page
  // faults measured costlier than read(2)'s copy into a window that stays in the cache
  // (docs/BENCHMARKS.md, "Read, not mapped").
  return from_file(std::move(f), path.string());
}

Result<FileReader> FileReader::from_stream(std::FILE* file, std::string name, std::span<const std::uint8_t> head) {
  return from_file(std::unique_ptr<std::FILE, FileCloser>(file), std::move(name), head);
}

Result<FileReader> FileReader::from_file(std::unique_ptr<std::FILE, FileCloser> f, std::string name,
                                         std::span<const std::uint8_t> head) {
  // The window is read in blocks of kWindowBytes straight into window_ (stdio's own buffer
  // would be one more copy of every byte).
  std::setvbuf(f.get(), nullptr, _IONBF, 0);
  FileReader r(std::move(name), std::move(f), {});
  r.window_.assign(head.begin(), head.end());
  r.end_ = head.size();
  if (auto ok = r.read_file_header(); !ok) return tl::unexpected(ok.error());
  return r;
}

Result<FileReader> FileReader::from_memory(std::span<const std::uint8_t> bytes, std::string name) {
  FileReader r(std::move(name), nullptr, bytes);
  if (auto ok = r.read_file_header(); !ok) return tl::unexpected(ok.error());
  return r;
}

void FileReader::refill(std::size_t n) {
  std::copy(window_.begin() + static_cast<std::ptrdiff_t>(pos_), window_.begin() + static_cast<std::ptrdiff_t>(end_),
            window_.begin());
  end_ -= pos_;
  pos_ = 0;
  if (window_.size() < std::max(n, kWindowBytes)) window_.resize(std::max(n, kWindowBytes));
  while (end_ < n && !input_ended_) {
    const std::size_t got = std::fread(window_.data() + end_, 1, window_.size() - end_, file_.get());
    end_ += got;
    if (got == 0) input_ended_ = true;
  }
}

tl::unexpected<Error> FileReader::fail(std::string message, bool truncated) {
  failed_ = Error{{}, 0, std::move(message)};
  truncated_ = truncated;
  return tl::unexpected(*failed_);
}

std::string FileReader::where() const {
  return fmt::format("{}: record {} (offset {})", name_, records_ + 1, offset_);
}

Result<void> FileReader::read_file_header() {
  const auto h = peek(kFileHeaderLen);
  const std::size_t got = h.size();
  if (got < 4) {
    return make_error(got == 0 ? fmt::format("{}: empty file, not a pcap or pcapng capture", name_)
                               : fmt::format("{}: not a pcap or pcapng capture ({} bytes)", name_, got));
  }
  const std::uint32_t le = detail::load_le32(h.data());
  const std::uint32_t be = detail::load_be32(h.data());
  if (le == kPcapngMagic) {
    header_.pcapng = true;
    return read_pcapng_start();
  }
  bool little = false;
  if (le == kMicroMagic || le == kNanoMagic) {
    little = true;
  } else if (be != kMicroMagic && be != kNanoMagic) {
    if (le == kKuznetzovMagic || be == kKuznetzovMagic) {
      return make_error(fmt::format("{}: modified (Kuznetzov) pcap format is not supported", name_));
    }
    return make_error(fmt::format("{}: not a pcap or pcapng capture (magic 0x{:08x})", name_, be));
  }
  if (got < kFileHeaderLen) {
    return make_error(
        fmt::format("{}: truncated: file header has {} of {} bytes", name_, got, kFileHeaderLen));
  }
  little_ = little;
  header_.nanosecond = (little ? le : be) == kNanoMagic;
  header_.swapped = little != (std::endian::native == std::endian::little);
  header_.version_major = u16(h.data() + 4);
  header_.version_minor = u16(h.data() + 6);
  header_.snaplen = u32(h.data() + 16);
  header_.network = u32(h.data() + 20);
  if (header_.version_major != 2) {
    return make_error(fmt::format("{}: file header: unsupported version {}.{} (expected 2.x)", name_,
                                  header_.version_major, header_.version_minor));
  }
  const auto link = link_type_from_pcap(header_.network);
  if (!link) {
    return make_error(fmt::format(
        "{}: file header: unsupported link type {} (supported: 0 null, 1 Ethernet, 101/228 raw "
        "IPv4, 113 Linux SLL, 276 Linux SLL2)",
        name_, header_.network & 0x03FFFFFF));
  }
  header_.link = *link;
  consume(kFileHeaderLen);
  return {};
}

Result<std::optional<Record>> FileReader::next() {
  if (failed_) return tl::unexpected(*failed_);
  return header_.pcapng ? next_pcapng() : next_classic();
}

Result<std::optional<Record>> FileReader::next_classic() {
  const auto h = peek(kRecordHeaderLen);
  if (h.empty()) {
    if (file_ && std::ferror(file_.get())) return fail(fmt::format("{}: read error", where()));
    return std::optional<Record>{};
  }
  if (h.size() < kRecordHeaderLen) {
    return fail(fmt::format("{}: truncated: record header has {} of {} bytes", where(), h.size(), kRecordHeaderLen),
                true);
  }
  std::uint32_t f[4];
  for (int i = 0; i < 4; ++i) {
    f[i] = u32(h.data() + 4 * i);
  }
  const std::uint32_t incl_len = f[2];
  if (incl_len > kMaxSnaplen) {
    return fail(fmt::format("{}: incl_len {} exceeds the maximum {} (corrupt record header?)",
                            where(), incl_len, kMaxSnaplen));
  }
  const auto whole = peek(kRecordHeaderLen + incl_len);
  if (whole.size() < kRecordHeaderLen + incl_len) {
    return fail(fmt::format("{}: truncated: incl_len is {} but the file ends after {} bytes", where(), incl_len,
                            whole.size() - kRecordHeaderLen),
                true);
  }
  Record rec;
  rec.number = records_ + 1;
  rec.time_ns = std::int64_t{f[0]} * 1'000'000'000 +
                std::int64_t{f[1]} * (header_.nanosecond ? 1 : 1000);
  rec.orig_len = f[3];
  rec.data = whole.subspan(kRecordHeaderLen);
  ++records_;
  consume(whole.size());
  return std::optional<Record>(rec);
}

}  // namespace ackstall::pcap
