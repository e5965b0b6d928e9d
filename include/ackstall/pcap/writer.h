// ackstall/pcap/writer.h — streams TcpPackets into a classic pcap file.
//
// File format: libpcap "savefile" with nanosecond timestamps (magic 0xa1b23c4d, written in host
// byte order as libpcap does), version 2.4, LINKTYPE_ETHERNET, the configured snaplen. Each
// record is one Ethernet/IPv4/TCP frame (frame_encoder.h): orig_len is the full frame length,
// incl_len = min(orig_len, snaplen); captured payload bytes are payload_byte(seq + i).
//
// Memory is constant in the number and size of packets (one snaplen-sized buffer). The IPv4
// identification field counts up per written packet from 1 (deterministic output).
// Errors (values, never exceptions): cannot open, negative or > 2^32 s time, payload too large,
// stream failure. After an error the writer stays usable only if the stream is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

inline constexpr std::uint32_t kMaxSnaplen = 262144;  // libpcap's MAXIMUM_SNAPLEN

struct WriterOptions {
  std::uint32_t snaplen = 128;  // bytes kept per frame, 1..kMaxSnaplen
};

class Writer {
 public:
  // Creates (truncates) `path` and writes the file header.
  static Result<Writer> create(const std::filesystem::path& path, WriterOptions options = {});
  // Writes to a caller-owned stream that must outlive the Writer; `name` is used in messages.
  static Result<Writer> to_stream(std::ostream& out, WriterOptions options = {},
                                  std::string name = "<stream>");

  Writer(Writer&&) noexcept;
  Writer& operator=(Writer&&) noexcept;
  ~Writer();

  Result<void> write(const TcpPacket& packet);
  // Flushes buffered bytes to the file; also done by the destructor (which cannot report).
  Result<void> flush();

  std::uint64_t packets_written() const noexcept { return packets_; }
  std::uint64_t bytes_written() const noexcept { return bytes_; }

 private:
  Writer(std::unique_ptr<std::ostream> owned, std::ostream* out, WriterOptions options,
         std::string name);
  Result<void> write_file_header();

  std::unique_ptr<std::ostream> owned_;
  std::ostream* out_ = nullptr;
  WriterOptions options_;
  std::string name_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t packets_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace ackstall::pcap
