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

constexpr std::uint32_t kMicroMagic = 0xa1b2c3d4;
constexpr std::uint32_t kNanoMagic = 0xa1b23c4d;
constexpr std::uint32_t kPcapngMagic = 0x0a0d0d0a;
constexpr std::uint32_t kKuznetzovMagic = 0xa1b2cd34;
constexpr std::size_t kFileHeaderLen = 24;
constexpr std::size_t kRecordHeaderLen = 16;

}  // namespace

void FileReader::FileCloser::operator()(std::FILE* f) const noexcept { std::fclose(f); }

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
    return make_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  std::setvbuf(f.get(), nullptr, _IOFBF, 1 << 20);
  FileReader r(path.string(), std::move(f), {});
  if (auto ok = r.read_file_header(); !ok) return tl::unexpected(ok.error());
  return r;
}

Result<FileReader> FileReader::from_memory(std::span<const std::uint8_t> bytes, std::string name) {
  FileReader r(std::move(name), nullptr, bytes);
  if (auto ok = r.read_file_header(); !ok) return tl::unexpected(ok.error());
  return r;
}

std::size_t FileReader::read_into(std::uint8_t* out, std::size_t n) {
  if (file_) return std::fread(out, 1, n, file_.get());
  const std::size_t k = std::min(n, memory_.size() - memory_pos_);
  std::copy_n(memory_.begin() + static_cast<std::ptrdiff_t>(memory_pos_), k, out);
  memory_pos_ += k;
  return k;
}

std::string FileReader::where() const {
  return fmt::format("{}: record {} (offset {})", name_, records_ + 1, offset_);
}

Result<void> FileReader::read_file_header() {
  std::uint8_t h[kFileHeaderLen];
  const std::size_t got = read_into(h, sizeof h);
  if (got < 4) {
    return make_error(got == 0 ? fmt::format("{}: empty file, not a pcap file", name_)
                               : fmt::format("{}: not a pcap file ({} bytes)", name_, got));
  }
  const std::uint32_t le = detail::load_le32(h);
  const std::uint32_t be = detail::load_be32(h);
  if (le == kPcapngMagic) {
    return make_error(fmt::format(
        "{}: pcapng format is not supported; convert it with: editcap -F pcap {} out.pcap", name_,
        name_));
  }
  bool little = false;
  if (le == kMicroMagic || le == kNanoMagic) {
    little = true;
  } else if (be != kMicroMagic && be != kNanoMagic) {
    if (le == kKuznetzovMagic || be == kKuznetzovMagic) {
      return make_error(fmt::format("{}: modified (Kuznetzov) pcap format is not supported", name_));
    }
    return make_error(fmt::format("{}: not a pcap file (magic 0x{:08x})", name_, be));
  }
  if (got < sizeof h) {
    return make_error(
        fmt::format("{}: truncated: file header has {} of {} bytes", name_, got, sizeof h));
  }
  const auto u32 = [little](const std::uint8_t* p) {
    return little ? detail::load_le32(p) : detail::load_be32(p);
  };
  const auto u16 = [little](const std::uint8_t* p) {
    return little ? detail::load_le16(p) : detail::load_be16(p);
  };
  header_.nanosecond = (little ? le : be) == kNanoMagic;
  header_.swapped = little != (std::endian::native == std::endian::little);
  header_.version_major = u16(h + 4);
  header_.version_minor = u16(h + 6);
  header_.snaplen = u32(h + 16);
  header_.network = u32(h + 20);
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
  offset_ = sizeof h;
  return {};
}

Result<std::optional<Record>> FileReader::next() {
  if (failed_) return tl::unexpected(*failed_);
  const auto fail = [this](std::string message) {
    failed_ = Error{{}, 0, std::move(message)};
    return tl::unexpected(*failed_);
  };
  std::uint8_t h[kRecordHeaderLen];
  const std::size_t got = read_into(h, sizeof h);
  if (got == 0) {
    if (file_ && std::ferror(file_.get())) return fail(fmt::format("{}: read error", where()));
    return std::optional<Record>{};
  }
  if (got < sizeof h) {
    return fail(fmt::format("{}: truncated: record header has {} of {} bytes", where(), got,
                            sizeof h));
  }
  const bool little = (std::endian::native == std::endian::little) != header_.swapped;
  std::uint32_t f[4];
  for (int i = 0; i < 4; ++i) {
    f[i] = little ? detail::load_le32(h + 4 * i) : detail::load_be32(h + 4 * i);
  }
  const std::uint32_t incl_len = f[2];
  if (incl_len > kMaxSnaplen) {
    return fail(fmt::format("{}: incl_len {} exceeds the maximum {} (corrupt record header?)",
                            where(), incl_len, kMaxSnaplen));
  }
  Record rec;
  rec.number = records_ + 1;
  rec.time_ns = std::int64_t{f[0]} * 1'000'000'000 +
                std::int64_t{f[1]} * (header_.nanosecond ? 1 : 1000);
  rec.orig_len = f[3];
  if (file_) {
    if (buffer_.size() < incl_len) buffer_.resize(incl_len);
    const std::size_t n = read_into(buffer_.data(), incl_len);
    if (n < incl_len) {
      return fail(fmt::format("{}: truncated: incl_len is {} but the file ends after {} bytes",
                              where(), incl_len, n));
    }
    rec.data = std::span<const std::uint8_t>(buffer_.data(), incl_len);
  } else {
    const std::size_t left = memory_.size() - memory_pos_;
    if (left < incl_len) {
      memory_pos_ = memory_.size();
      return fail(fmt::format("{}: truncated: incl_len is {} but the file ends after {} bytes",
                              where(), incl_len, left));
    }
    rec.data = memory_.subspan(memory_pos_, incl_len);
    memory_pos_ += incl_len;
  }
  ++records_;
  offset_ += sizeof h + incl_len;
  return std::optional<Record>(rec);
}

}  // namespace ackstall::pcap
