// ackstall/sim/segment.h — a TCP segment inside the simulator.
//
// Sequence numbers are 64-bit offsets from each side's ISS (SYN = 0, data byte i at i + 1,
// FIN after the last data byte): no wrap-around inside the model. The trace adds the ISS and
// truncates to 32 bits. `wnd` is the 16-bit window field exactly as on the wire (already shifted
// right by the sender's receive scale).
#pragma once

#include "ackstall/core/link_framing.h"
#include "ackstall/core/tcp_flags.h"
#include "ackstall/core/tcp_options.h"

#include <cstdint>

namespace ackstall::sim {

namespace tcp_flag = core::tcp_flag;  // core/tcp_flags.h

struct Segment {
  std::int64_t seq = 0;
  std::int64_t ack = 0;
  std::int32_t len = 0;
  std::uint16_t wnd = 0;
  std::uint8_t flags = 0;
  bool retransmit = false;
  bool window_update = false;  // pure ACK sent because a read opened the window
  bool delayed_ack = false;    // pure ACK sent by an expiring delayed-ACK timer
  core::TcpOptions opts{};       // the options as on the wire (core/tcp_options.h)

  // TCP option bytes as encoded (padded to 4): MSS 4, NOP+wscale 4, NOP NOP+timestamps 12.
  std::int32_t option_bytes() const noexcept { return opts.encoded_length(); }
  std::int32_t ip_len() const noexcept { return core::tcp_ip_header_bytes() + option_bytes() + len; }
  bool has(std::uint8_t f) const noexcept { return (flags & f) != 0; }
};

}  // namespace ackstall::sim
