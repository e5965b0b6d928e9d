// ackstall/core/tcp_flags.h — the TCP header's flag bits (RFC 9293 §3.1), shared by the
// simulator's wire frames (sim/trace.h) and the pcap reader and writer (pcap/tcp_packet.h),
// which both alias this namespace as their own `tcp_flag`.
#pragma once

#include <cstdint>

namespace ackstall::core::tcp_flag {

inline constexpr std::uint8_t fin = 0x01;
inline constexpr std::uint8_t syn = 0x02;
inline constexpr std::uint8_t rst = 0x04;
inline constexpr std::uint8_t psh = 0x08;
inline constexpr std::uint8_t ack = 0x10;
inline constexpr std::uint8_t urg = 0x20;

}  // namespace ackstall::core::tcp_flag
