// FileReader's pcapng half: sections, interface descriptions and packet blocks
// (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-02.html, §4). The block's bytes are
// read in place from FileReader's window: a record's data points into it.
#include <fmt/format.h>

#include <limits>

#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/writer.h"
#include "bytes.h"

namespace ackstall::pcap {
namespace {

// Block types (pcapng draft §4 and §11.1).
constexpr std::uint32_t kSectionHeader = 0x0A0D0D0A;
constexpr std::uint32_t kInterfaceDescription = 1;
constexpr std::uint32_t kObsoletePacket = 2;
constexpr std::uint32_t kSimplePacket = 3;
constexpr std::uint32_t kEnhancedPacket = 6;
constexpr std::uint32_t kInterfaceStatistics = 5;
constexpr std::uint16_t kOptIsbIfdrop = 5, kOptIsbOsdrop = 7;  // pcapng §4.6
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;
// Interface options (§4.2): if_tsresol (1 byte), if_tsoffset (8 bytes, seconds, signed).
constexpr std::uint16_t kOptEnd = 0, kOptTsresol = 9, kOptTsoffset = 14;
// libpcap's limit on a block (sf-pcapng.c, INITIAL/MAX_BLOCKSIZE: 16 MiB).
constexpr std::uint32_t kMaxBlockBytes = 16u << 20;

bool is_packet(std::uint32_t type) {
  return type == kEnhancedPacket || type == kSimplePacket || type == kObsoletePacket;
}

// A timestamp in `tsresol` units (10^-n s, or 2^-n s with the high bit set) as ns since the
// epoch; nullopt beyond what int64 ns holds.
std::optional<std::int64_t> to_ns(std::uint64_t units, std::uint8_t tsresol, std::int64_t tsoffset_s) {
  // Decimal units no finer than ns with no offset (the common case: us or ns, offset 0): one
  // 64-bit product where it fits; the general 128-bit path below gives the same value.
  static constexpr std::uint64_t kTens[] = {1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000,
                                            1'000'000'000};
  if (tsresol <= 9 && tsoffset_s == 0) {
    std::uint64_t ns64 = 0;
    if (!__builtin_mul_overflow(units, kTens[9 - tsresol], &ns64) &&
        ns64 <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return static_cast<std::int64_t>(ns64);
    }
  }
  __extension__ typedef __int128 Wide;  // GCC and Clang (also MinGW-w64): 128-bit intermediate
  Wide ns = 0;
  if ((tsresol & 0x80) != 0) {
    const int shift = tsresol & 0x7f;
    if (shift > 63) return std::nullopt;
    ns = (Wide{units} * 1'000'000'000) >> shift;
  } else {
    if (tsresol > 19) return std::nullopt;  // 10^20 units a second do not fit a 64-bit count
    Wide scale = 1;
    for (int i = 0; i < std::abs(9 - tsresol); ++i) scale *= 10;
    ns = tsresol <= 9 ? Wide{units} * scale : Wide{units} / scale;
  }
  ns += Wide{tsoffset_s} * 1'000'000'000;
  if (ns < 0 || ns > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return static_cast<std::int64_t>(ns);
}

}  // namespace

Result<void> FileReader::read_section_header(std::span<const std::uint8_t> block) {
  if (block.size() < 28) {
    return fail(fmt::format("{}: section header block of {} bytes, below the 28 it needs", where(), block.size()));
  }
  const std::uint16_t major = u16(block.data() + 12);
  if (major != 1) return fail(fmt::format("{}: section header: unsupported pcapng version {}", where(), major));
  earlier_sections_drops_ = capture_drops();
  interfaces_.clear();
  return {};
}

Result<void> FileReader::read_interface(std::span<const std::uint8_t> block) {
  if (block.size() < 20) {
    return fail(fmt::format("{}: interface description block of {} bytes, below the 20 it needs", where(),
                            block.size()));
  }
  Interface i;
  const std::uint32_t network = u16(block.data() + 8);
  const auto link = link_type_from_pcap(network);
  if (!link) {
    return fail(fmt::format("{}: interface {}: unsupported link type {} (supported: 0 null, 1 Ethernet, 101/228 "
                            "raw IPv4, 113 Linux SLL, 276 Linux SLL2)", where(), interfaces_.size(), network));
  }
  if (header_.pcapng && header_.network != 0xffffffff && network != header_.network) {
    return fail(fmt::format("{}: interface {} has link type {} but the first has {}: one link type per capture",
                            where(), interfaces_.size(), network, header_.network));
  }
  i.link = *link;
  i.snaplen = u32(block.data() + 12);
  // Options: code, length, value padded to 4 bytes, up to opt_endofopt or the trailing length.
  std::size_t at = 16;
  const std::size_t end = block.size() - 4;
  while (at + 4 <= end) {
    const std::uint16_t code = u16(block.data() + at), len = u16(block.data() + at + 2);
    if (code == kOptEnd) break;
    if (at + 4 + len > end) {
      return fail(fmt::format("{}: interface {}: option {} of {} bytes runs past its block", where(),
                              interfaces_.size(), code, len));
    }
    const std::uint8_t* v = block.data() + at + 4;
    if (code == kOptTsresol && len >= 1) i.tsresol = v[0];
    if (code == kOptTsoffset && len >= 8) {
      const std::uint64_t raw = little_ ? (std::uint64_t{u32(v + 4)} << 32) | u32(v)
                                        : (std::uint64_t{u32(v)} << 32) | u32(v + 4);
      i.tsoffset_s = static_cast<std::int64_t>(raw);
    }
    at += 4 + (std::size_t{len} + 3) / 4 * 4;
  }
  if (!first_interface_read_) {
    header_.network = network;
    header_.link = i.link;
    header_.snaplen = i.snaplen;
  }
  interfaces_.push_back(i);
  return {};
}

Result<std::span<const std::uint8_t>> FileReader::pcapng_block() {
  const auto head = peek(12);
  if (head.empty()) {
    if (file_ && std::ferror(file_.get())) return fail(fmt::format("{}: read error", where()));
    return head;
  }
  if (head.size() < 8) {
    return fail(fmt::format("{}: truncated: block header has {} of 8 bytes", where(), head.size()), true);
  }
  const std::uint32_t type = detail::load_le32(head.data());  // the SHB's type reads the same both ways
  if (type == kSectionHeader) {
    if (head.size() < 12) {
      return fail(fmt::format("{}: truncated: section header has {} of 12 bytes", where(), head.size()), true);
    }
    if (detail::load_le32(head.data() + 8) == kByteOrderMagic) {
      little_ = true;
    } else if (detail::load_be32(head.data() + 8) == kByteOrderMagic) {
      little_ = false;
    } else {
      return fail(fmt::format("{}: section header: byte-order magic 0x{:08x} is not 0x1a2b3c4d in either order",
                              where(), detail::load_be32(head.data() + 8)));
    }
  }
  const std::uint32_t block_type = u32(head.data()), len = u32(head.data() + 4);
  if (len < 12 || len % 4 != 0) {
    return fail(fmt::format("{}: block of type {} has a length of {} (below 12 or not a multiple of 4)", where(),
                            block_type, len));
  }
  if (len > kMaxBlockBytes) {
    return fail(fmt::format("{}: block of type {} has a length of {}, over the {} a block may have", where(),
                            block_type, len, kMaxBlockBytes));
  }
  const auto block = peek(len);
  if (block.size() < len) {
    return fail(fmt::format("{}: truncated: block of type {} has {} of {} bytes", where(), block_type, block.size(),
                            len), true);
  }
  if (const std::uint32_t trailer = u32(block.data() + len - 4); trailer != len) {
    return fail(fmt::format("{}: block of type {}: trailing length {} differs from the leading {}", where(),
                            block_type, trailer, len));
  }
  return block;
}

Result<void> FileReader::read_pcapng_start() {
  header_.network = 0xffffffff;  // none yet
  while (true) {
    auto block = pcapng_block();
    if (!block) return tl::unexpected(block.error());
    if (block->empty()) return make_error(fmt::format("{}: pcapng file has no interface description block", name_));
    const std::uint32_t type = u32(block->data());
    if (is_packet(type)) {
      return fail(fmt::format("{}: a packet block before any interface description block", where()));
    }
    Result<void> ok{};
    if (type == kSectionHeader) ok = read_section_header(*block);
    if (type == kInterfaceDescription) ok = read_interface(*block);
    if (!ok) return ok;
    consume(block->size());
    if (!interfaces_.empty()) {
      first_interface_read_ = true;
      return {};
    }
  }
}

Result<std::optional<Record>> FileReader::next_pcapng() {
  while (true) {
    auto got = pcapng_block();
    if (!got) return tl::unexpected(got.error());
    const std::span<const std::uint8_t> b = *got;
    if (b.empty()) return std::optional<Record>{};
    const std::uint32_t type = u32(b.data());
    if (type == kSectionHeader || type == kInterfaceDescription) {
      if (auto ok = type == kSectionHeader ? read_section_header(b) : read_interface(b); !ok) {
        return tl::unexpected(ok.error());
      }
      consume(b.size());
      continue;
    }
    if (!is_packet(type)) {  // statistics, name resolution, custom, ...: not packets
      if (type == kInterfaceStatistics) read_statistics(b);
      consume(b.size());
      continue;
    }
    // EPB: interface(4) ts_high(4) ts_low(4) caplen(4) origlen(4) data; PB: interface(2)
    // drops(2), then the same; SPB: origlen(4) data, on interface 0, no timestamp.
    const std::size_t fixed = type == kSimplePacket ? 16 : 32;
    if (b.size() < fixed) {
      return fail(fmt::format("{}: packet block of type {} has {} bytes, below the {} it needs", where(), type,
                              b.size(), fixed));
    }
    const std::uint32_t iface = type == kEnhancedPacket ? u32(b.data() + 8)
                                : type == kObsoletePacket ? u16(b.data() + 8) : 0;
    if (iface >= interfaces_.size()) {
      return fail(fmt::format("{}: a packet on interface {}, but the section describes {}", where(), iface,
                              interfaces_.size()));
    }
    const Interface& i = interfaces_[iface];
    Record rec;
    rec.number = records_ + 1;
    std::uint32_t caplen = 0;
    std::size_t data_at = 0;
    if (type == kSimplePacket) {
      rec.orig_len = u32(b.data() + 8);
      caplen = static_cast<std::uint32_t>(std::min<std::size_t>(rec.orig_len, b.size() - fixed));
      if (i.snaplen != 0) caplen = std::min(caplen, i.snaplen);
      data_at = 12;
    } else {
      const std::uint64_t units = (std::uint64_t{u32(b.data() + 12)} << 32) | u32(b.data() + 16);
      const auto t = to_ns(units, i.tsresol, i.tsoffset_s);
      if (!t) return fail(fmt::format("{}: timestamp {} (if_tsresol {}) out of range", where(), units, i.tsresol));
      rec.time_ns = *t;
      caplen = u32(b.data() + 20);
      rec.orig_len = u32(b.data() + 24);
      data_at = 28;
      if (caplen > b.size() - fixed) {
        return fail(fmt::format("{}: captured length {} runs past its {}-byte block", where(), caplen, b.size()));
      }
    }
    if (caplen > kMaxSnaplen) {
      return fail(fmt::format("{}: captured length {} exceeds the maximum {}", where(), caplen, kMaxSnaplen));
    }
    rec.data = b.subspan(data_at, caplen);
    ++records_;
    consume(b.size());
    return std::optional<Record>(rec);
  }
}

void FileReader::read_statistics(std::span<const std::uint8_t> b) {
  // ISB: type(4) length(4) interface(4) ts_high(4) ts_low(4) options... length(4). A malformed
  // one is ignored: statistics never stop the packets from being read.
  if (b.size() < 24) return;
  const std::uint32_t iface = u32(b.data() + 8);
  if (iface >= interfaces_.size()) return;
  std::optional<std::uint64_t> drops;
  for (std::size_t at = 20; at + 4 <= b.size() - 4;) {
    const std::uint16_t code = u16(b.data() + at), len = u16(b.data() + at + 2);
    if (code == kOptEnd || at + 4 + len > b.size() - 4) break;
    if ((code == kOptIsbIfdrop || code == kOptIsbOsdrop) && len == 8) {
      const std::uint64_t hi = u32(b.data() + at + 4 + (little_ ? 4 : 0));
      const std::uint64_t lo = u32(b.data() + at + 4 + (little_ ? 0 : 4));
      drops = drops.value_or(0) + ((hi << 32) | lo);
    }
    at += 4 + ((len + 3u) & ~3u);
  }
  if (drops) interfaces_[iface].drops = drops;
}

std::optional<std::uint64_t> FileReader::capture_drops() const {
  std::optional<std::uint64_t> total = earlier_sections_drops_;
  for (const Interface& i : interfaces_) {
    if (i.drops) total = total.value_or(0) + *i.drops;
  }
  return total;
}

}  // namespace ackstall::pcap
