#include "ackstall/live/trace_format.h"

#include <charconv>
#include <cstring>

namespace ackstall::live {
namespace {

std::optional<std::size_t> number_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const char* p = line.data() + at + key.size();
  while (p < line.data() + line.size() && *p == ' ') ++p;
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(p, line.data() + line.size(), v);
  if (ec != std::errc{} || end == p) return std::nullopt;
  return v;
}

std::uint32_t word(std::span<const std::byte> b, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// kernel/trace/ring_buffer.c: the commit word's flags and the record header's type_len values.
constexpr std::uint64_t kMissedEvents = std::uint64_t{1} << 31, kMissedStored = std::uint64_t{1} << 30;
constexpr unsigned kTypePadding = 29, kTypeTimeExtend = 30, kTypeTimeStamp = 31;
constexpr unsigned kTsShift = 27;

}  // namespace

const FieldFormat* EventFormat::field(std::string_view n) const {
  for (const FieldFormat& f : fields) if (f.name == n) return &f;
  return nullptr;
}

core::Result<EventFormat> parse_event_format(std::string_view text, std::string_view name) {
  EventFormat e;
  e.name = std::string(name);
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.starts_with("ID:")) {
      const auto id = number_after(line, "ID:");
      if (!id || *id > 0xffff) return core::fail(std::string(name) + " format: bad ID line '" + std::string(line) + "'");
      e.id = static_cast<std::uint16_t>(*id);
      continue;
    }
    const auto f = line.find("field:");
    if (f == std::string_view::npos) continue;
    const auto semi = line.find(';', f);
    const auto offset = number_after(line, "offset:"), size = number_after(line, "size:");
    if (semi == std::string_view::npos || !offset || !size) {
      return core::fail(std::string(name) + " format: unreadable field line '" + std::string(line) + "'");
    }
    // "__u8 saddr[28]" -> saddr: the declaration's last identifier, without its array bounds.
    std::string_view decl = line.substr(f + 6, semi - f - 6);
    if (const auto br = decl.find('['); br != std::string_view::npos) decl = decl.substr(0, br);
    while (!decl.empty() && decl.back() == ' ') decl.remove_suffix(1);
    const auto sp = decl.find_last_of(" *\t");
    FieldFormat ff{std::string(sp == std::string_view::npos ? decl : decl.substr(sp + 1)), *offset, *size, false};
    ff.is_signed = number_after(line, "signed:").value_or(0) != 0;
    e.fields.push_back(std::move(ff));
  }
  if (e.fields.empty()) return core::fail(std::string(name) + " format: no fields");
  return e;
}

std::optional<std::uint64_t> read_field(std::span<const std::byte> record, const FieldFormat& f) {
  if (f.offset + f.size > record.size() || f.size == 0 || f.size > 8) return std::nullopt;
  std::uint64_t v = 0;
  std::memcpy(&v, record.data() + f.offset, f.size);  // little-endian hosts (x86, arm64): low bytes first
  return v;
}

core::Result<PageLayout> page_layout(const EventFormat& h) {
  const FieldFormat* ts = h.field("timestamp");
  const FieldFormat* commit = h.field("commit");
  const FieldFormat* data = h.field("data");
  if (!ts || !commit || !data) return core::fail("header_page: no timestamp, commit or data field");
  return PageLayout{ts->offset, commit->offset, commit->size, data->offset};
}

core::Result<PageStats> decode_page(std::span<const std::byte> page, const PageLayout& l,
                                    const std::function<void(std::uint64_t, std::span<const std::byte>)>& on_record) {
  if (page.size() < l.data_offset || l.commit_size > 8) return core::fail("trace page shorter than its header");
  std::uint64_t ts = 0, commit = 0;
  std::memcpy(&ts, page.data() + l.timestamp_offset, 8);
  std::memcpy(&commit, page.data() + l.commit_offset, l.commit_size);
  PageStats stats;
  stats.missed_events = (commit & kMissedEvents) != 0;
  const std::size_t length = commit & ~(kMissedEvents | kMissedStored) & 0xffffffffU;
  if (l.data_offset + length > page.size()) return core::fail("trace page: commit beyond the page");
  const auto data = page.subspan(l.data_offset, length);
  std::size_t at = 0;
  while (at + 4 <= data.size()) {
    const std::uint32_t h = word(data, at);
    const unsigned type_len = h & 0x1f;
    const std::uint32_t delta = h >> 5;
    at += 4;
    if (type_len == kTypePadding) {
      if (delta == 0) break;  // the rest of the page is empty
      if (at + 4 > data.size()) break;
      at += word(data, at);
      continue;
    }
    if (type_len == kTypeTimeExtend || type_len == kTypeTimeStamp) {
      if (at + 4 > data.size()) return core::fail("trace page: truncated time extend");
      const std::uint64_t ext = (std::uint64_t{word(data, at)} << kTsShift) + delta;
      ts = type_len == kTypeTimeExtend ? ts + ext : ext;
      at += 4;
      continue;
    }
    std::size_t len = type_len * 4U;
    if (type_len == 0) {
      if (at + 4 > data.size()) return core::fail("trace page: truncated record length");
      len = ((word(data, at) - 4U) + 3U) & ~std::size_t{3};
      at += 4;
    }
    if (at + len > data.size()) return core::fail("trace page: record beyond the commit");
    ts += delta;
    on_record(ts, data.subspan(at, len));
    ++stats.records;
    at += len;
  }
  return stats;
}

}  // namespace ackstall::live
