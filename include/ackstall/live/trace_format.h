// ackstall/live/trace_format.h — the kernel's tracing formats, read from tracefs rather than
// assumed (Documentation/trace/events.rst "Event formats"; ring buffer layout:
// kernel/trace/ring_buffer.c, as libtraceevent's kbuffer reads it):
//   events/<system>/<event>/format  each field's name, offset and size in a record;
//   events/header_page              the binary page's header (timestamp, commit) and data start;
//   per_cpu/cpuN/trace_pipe_raw     pages: the header, then records each behind a 32-bit header
//                                   (type_len:5, time_delta:27): 1-28 data of type_len*4 bytes,
//                                   0 data length in the next word, 29 padding, 30 time extend,
//                                   31 absolute time stamp.
// Pure: text and bytes in, values out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/core/error.h"

namespace ackstall::live {

struct FieldFormat {
  std::string name;
  std::size_t offset = 0, size = 0;
  bool is_signed = false;
};

struct EventFormat {
  std::string name;
  std::uint16_t id = 0;  // the record's common_type
  std::vector<FieldFormat> fields;
  const FieldFormat* field(std::string_view name) const;
};

// A `format` file's text (also header_page's: it has no ID line, id stays 0). NAME for errors.
core::Result<EventFormat> parse_event_format(std::string_view text, std::string_view name);

// An unsigned field of a record (little or host endian as the kernel wrote it), nullopt if the
// record is too short.
std::optional<std::uint64_t> read_field(std::span<const std::byte> record, const FieldFormat& f);

struct PageLayout {
  std::size_t timestamp_offset = 0, commit_offset = 8, commit_size = 8, data_offset = 16;
};
core::Result<PageLayout> page_layout(const EventFormat& header_page);

struct PageStats {
  std::size_t records = 0;
  bool missed_events = false;  // RB_MISSED_EVENTS: the writer overran the reader before this page
};

// Calls ON_RECORD(timestamp, record) for each record of one page, in order.
core::Result<PageStats> decode_page(std::span<const std::byte> page, const PageLayout& layout,
                                    const std::function<void(std::uint64_t, std::span<const std::byte>)>& on_record);

}  // namespace ackstall::live
