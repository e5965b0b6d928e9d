// ackstall/pcap/pcapng_writer.h — writes captured records into a pcapng file, each with an
// optional comment (what `scan --annotate` writes back for Wireshark to show as frame.comment).
//
// File format (pcapng, IETF draft-ietf-opsawg-pcapng §4): one Section Header Block, one
// Interface Description Block (the records' link type, their snaplen, if_tsresol 9:
// nanoseconds), then one Enhanced Packet Block per record, its comment as opt_comment (§3.5,
// code 1). Host byte order, as the byte-order magic says. Memory: one block's buffer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/link_type.h"

namespace ackstall::pcap {

class PcapngWriter {
 public:
  // Creates (truncates) `path` and writes the section and interface blocks.
  static Result<PcapngWriter> create(const std::filesystem::path& path, LinkType link,
                                     std::uint32_t snaplen = 262144);
  // One record (its captured bytes, original length, time) with `comment` unless empty.
  Result<void> write(const Record& record, std::string_view comment = {});
  Result<void> close();

 private:
  PcapngWriter(std::filesystem::path path, std::ofstream out) : path_(std::move(path)), out_(std::move(out)) {}
  Result<void> put(const std::vector<std::uint8_t>& block);
  std::filesystem::path path_;
  std::ofstream out_;
  std::vector<std::uint8_t> block_;
};

}  // namespace ackstall::pcap
