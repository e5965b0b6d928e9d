#include "ackstall/pcap/pcapng_writer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "ackstall/core/error.h"

namespace ackstall::pcap {
namespace {

// Block types and options (draft-ietf-opsawg-pcapng §4.1-§4.3, §3.5).
constexpr std::uint32_t kSectionHeader = 0x0A0D0D0A, kInterfaceDescription = 1, kEnhancedPacket = 6;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr std::uint16_t kOptEnd = 0, kOptComment = 1, kOptTsresol = 9;

template <class T>
void put_le(std::vector<std::uint8_t>& b, T v) {  // host order: the byte-order magic tells readers
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  b.insert(b.end(), bytes, bytes + sizeof(T));
}

void pad4(std::vector<std::uint8_t>& b) {
  while (b.size() % 4 != 0) b.push_back(0);
}

void option(std::vector<std::uint8_t>& b, std::uint16_t code, std::span<const std::uint8_t> value) {
  put_le(b, code);
  put_le(b, static_cast<std::uint16_t>(value.size()));
  b.insert(b.end(), value.begin(), value.end());
  pad4(b);
}

// Starts a block of `type` (length patched by finish()).
void start(std::vector<std::uint8_t>& b, std::uint32_t type) {
  b.clear();
  put_le(b, type);
  put_le(b, std::uint32_t{0});
}

void finish(std::vector<std::uint8_t>& b) {
  const auto len = static_cast<std::uint32_t>(b.size() + 4);
  std::memcpy(b.data() + 4, &len, 4);
  put_le(b, len);
}

}  // namespace

Result<PcapngWriter> PcapngWriter::create(const std::filesystem::path& path, LinkType link, std::uint32_t snaplen) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return core::os_failure("", errno, fmt::format("{}: cannot create: {}", path.string(), std::strerror(errno)));
  PcapngWriter w(path, std::move(out));
  start(w.block_, kSectionHeader);
  put_le(w.block_, kByteOrderMagic);
  put_le(w.block_, std::uint16_t{1});   // major version
  put_le(w.block_, std::uint16_t{0});   // minor version
  put_le(w.block_, std::int64_t{-1});   // section length: not given
  finish(w.block_);
  if (auto ok = w.put(w.block_); !ok) return tl::unexpected(ok.error());
  start(w.block_, kInterfaceDescription);
  put_le(w.block_, static_cast<std::uint16_t>(pcap_value(link)));
  put_le(w.block_, std::uint16_t{0});  // reserved
  put_le(w.block_, snaplen);
  const std::uint8_t ns = 9;  // if_tsresol: 10^-9 s
  option(w.block_, kOptTsresol, std::span<const std::uint8_t>(&ns, 1));
  option(w.block_, kOptEnd, {});
  finish(w.block_);
  if (auto ok = w.put(w.block_); !ok) return tl::unexpected(ok.error());
  return w;
}

Result<void> PcapngWriter::write(const Record& r, std::string_view comment) {
  start(block_, kEnhancedPacket);
  const auto t = static_cast<std::uint64_t>(r.time_ns);
  put_le(block_, std::uint32_t{0});  // interface 0
  put_le(block_, static_cast<std::uint32_t>(t >> 32));
  put_le(block_, static_cast<std::uint32_t>(t & 0xffffffffu));
  put_le(block_, static_cast<std::uint32_t>(r.data.size()));
  put_le(block_, r.orig_len);
  block_.insert(block_.end(), r.data.begin(), r.data.end());
  pad4(block_);
  if (!comment.empty()) {
    // An option's value is at most 65535 bytes (its length field).
    const std::string_view c = comment.substr(0, 65535);
    option(block_, kOptComment,
           std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.data()), c.size()));
    option(block_, kOptEnd, {});
  }
  finish(block_);
  return put(block_);
}

Result<void> PcapngWriter::put(const std::vector<std::uint8_t>& block) {
  out_.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size()));
  if (!out_) return make_error(fmt::format("{}: write failed", path_.string()));
  return {};
}

Result<void> PcapngWriter::close() {
  out_.close();
  if (!out_) return make_error(fmt::format("{}: write failed", path_.string()));
  return {};
}

}  // namespace ackstall::pcap
