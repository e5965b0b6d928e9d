// ackstall/core/tcp_options.h — the TCP options ackstall models, as one pure value type shared
// by the simulator (sim::Segment, sim::WireFrame) and the pcap library (pcap::TcpPacket).
//
// RFC 9293 MSS, RFC 7323 window scale and timestamps, RFC 2018 SACK-permitted. An absent option
// is an empty optional (sack_ok: false). SACK blocks and unknown options are not represented.
//
// encoded_length() is the size of these options on the wire as the pcap encoder lays them out
// (Linux tcp_options_write, src/pcap/tcp_options.cc): MSS 4; SACK-permitted + timestamps 12,
// NOP NOP timestamps 12, NOP NOP SACK-permitted 4; NOP window-scale 4. Always a multiple of 4,
// at most kMaxEncodedLength; the simulator's segment sizes use it (docs/STACKS.md §1, §3: the
// 12 bytes of the timestamp option are what turns MSS 1460 into 1448 payload bytes).
#pragma once

#include <cstdint>
#include <optional>

namespace ackstall::core {

struct TcpTimestamps {
  std::uint32_t val = 0;  // TSval
  std::uint32_t ecr = 0;  // TSecr
  friend constexpr bool operator==(const TcpTimestamps&, const TcpTimestamps&) = default;
};

struct TcpOptions {
  std::optional<std::uint16_t> mss;     // MSS option value
  std::optional<std::uint8_t> wscale;   // window-scale shift
  bool sack_ok = false;                 // SACK-permitted
  std::optional<TcpTimestamps> timestamps;

  static constexpr std::int32_t kMaxEncodedLength = 20;

  // Option bytes as encoded (padded to a multiple of 4).
  constexpr std::int32_t encoded_length() const noexcept {
    return (mss ? 4 : 0) + (timestamps ? 12 : (sack_ok ? 4 : 0)) + (wscale ? 4 : 0);
  }
  friend constexpr bool operator==(const TcpOptions&, const TcpOptions&) = default;
};

}  // namespace ackstall::core
