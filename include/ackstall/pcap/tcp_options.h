// ackstall/pcap/tcp_options.h — TCP options to and from wire bytes.
//
// encode_tcp_options lays options out the way Linux's tcp_options_write does, so captures look
// like a real stack's: MSS; then SACK-permitted + timestamps (both), NOP NOP timestamps (ts only)
// or NOP NOP SACK-permitted (sack only); then NOP window-scale. The result is always a multiple
// of 4 bytes, at most 20 (kMaxEncodedOptions), and always options.encoded_length() bytes
// (core/tcp_options.h, which the simulator uses to size its segments).
//
// parse_tcp_options reads any well-formed option list: EOL ends it, NOP is skipped, unknown kinds
// are skipped by their length; of a SACK option (RFC 2018 §3: kind 5, 2 + 8n bytes) the first two
// blocks are kept (SackBlocks), a length not 2 + 8n with n >= 1 is malformed. A length byte < 2, running past the end, or a
// known option with the wrong length makes it stop and report malformed = true (what was parsed
// before is kept). Never reads outside `bytes`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

inline constexpr std::size_t kMaxEncodedOptions = TcpOptions::kMaxEncodedLength;

// Writes into out (needs kMaxEncodedOptions bytes); returns the number of bytes written.
std::size_t encode_tcp_options(const TcpOptions& options, std::span<std::uint8_t> out) noexcept;

// NOP NOP SACK with SACK's blocks after them (12 or 20 bytes; out needs 20); the bytes written.
std::size_t encode_sack_blocks(const SackBlocks& sack, std::span<std::uint8_t> out) noexcept;

struct ParsedTcpOptions {
  TcpOptions options;
  SackBlocks sack;
  bool malformed = false;
};

ParsedTcpOptions parse_tcp_options(std::span<const std::uint8_t> bytes) noexcept;

}  // namespace ackstall::pcap
