// ackstall/pcap/conversation.h — builds the TcpPackets of one client->server bulk transfer with
// consistent sequence numbers, for synthetic captures (tests, benchmarks, examples).
//
// The client sends data; the server ACKs it. Sequence bookkeeping: data() appends `len` bytes at
// the client's next sequence number; ack(t, acked) acknowledges the first `acked` data bytes (pass bytes_sent() + 1 to ACK a FIN).
// For request/response, reply() sends the server's data (ACKing all the client's data) and
// client_ack() the client's ACK of it; the client's segments then ACK the server's data too.
// Options follow a Linux-like handshake: SYN/SYN-ACK carry MSS, SACK-permitted, timestamps and
// window scale as configured; later segments carry timestamps (TSval = time in ms) when enabled.
#pragma once

#include <cstdint>
#include <optional>

#include "ackstall/pcap/tcp_packet.h"

namespace ackstall::pcap {

struct ConversationConfig {
  Endpoint client{0x0a000001, 40000, {0x02, 0, 0, 0, 0, 1}};
  Endpoint server{0x0a000002, 5001, {0x02, 0, 0, 0, 0, 2}};
  std::uint32_t client_isn = 1000;
  std::uint32_t server_isn = 5000;
  std::uint16_t mss = 1460;
  bool timestamps = true;
  bool sack_ok = true;
  std::optional<std::uint8_t> wscale = 7;
  std::uint16_t window = 512;  // raw window field after the handshake (scaled by wscale)
};

class Conversation {
 public:
  explicit Conversation(ConversationConfig config = {}) : c_(config) {}

  TcpPacket syn(std::int64_t t) const;
  TcpPacket syn_ack(std::int64_t t) const;
  TcpPacket handshake_ack(std::int64_t t) const;
  // Client data: `len` bytes at the next sequence number; PSH when `push`.
  TcpPacket data(std::int64_t t, std::uint32_t len, bool push = false);
  // Server ACK of the first `acked` data bytes, advertising `window` (raw) or the default.
  TcpPacket ack(std::int64_t t, std::uint64_t acked, std::optional<std::uint16_t> window = {}) const;
  TcpPacket fin(std::int64_t t);
  // Server data: `len` bytes at the server's next sequence number, ACKing all the client's data.
  TcpPacket reply(std::int64_t t, std::uint32_t len, bool push = true);
  // Client ACK of all the server's data.
  TcpPacket client_ack(std::int64_t t) const;

  std::uint64_t bytes_sent() const noexcept { return sent_; }
  std::uint64_t bytes_replied() const noexcept { return replied_; }
  const ConversationConfig& config() const noexcept { return c_; }

 private:
  TcpPacket base(std::int64_t t, bool from_client) const;
  ConversationConfig c_;
  std::uint64_t sent_ = 0;
  std::uint64_t replied_ = 0;
  std::uint32_t server_next() const noexcept { return static_cast<std::uint32_t>(c_.server_isn + 1 + replied_); }
};

}  // namespace ackstall::pcap
