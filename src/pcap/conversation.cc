#include "ackstall/pcap/conversation.h"

namespace ackstall::pcap {

TcpPacket Conversation::base(std::int64_t t, bool from_client) const {
  TcpPacket p;
  p.time_ns = t;
  p.src = from_client ? c_.client : c_.server;
  p.dst = from_client ? c_.server : c_.client;
  p.window = c_.window;
  if (c_.timestamps) {
    const auto ms = static_cast<std::uint32_t>(t / 1'000'000);
    p.options.timestamps = TcpTimestamps{ms, ms};
  }
  return p;
}

TcpPacket Conversation::syn(std::int64_t t) const {
  TcpPacket p = base(t, true);
  p.seq = c_.client_isn;
  p.flags = tcp_flag::syn;
  p.window = 64240;
  p.options = {c_.mss, c_.wscale, c_.sack_ok,
               c_.timestamps ? std::optional(TcpTimestamps{1, 0}) : std::nullopt};
  return p;
}

TcpPacket Conversation::syn_ack(std::int64_t t) const {
  TcpPacket p = base(t, false);
  p.seq = c_.server_isn;
  p.ack = c_.client_isn + 1;
  p.flags = tcp_flag::syn | tcp_flag::ack;
  p.window = 65160;
  p.options = {c_.mss, c_.wscale, c_.sack_ok,
               c_.timestamps ? std::optional(TcpTimestamps{2, 1}) : std::nullopt};
  return p;
}

TcpPacket Conversation::handshake_ack(std::int64_t t) const {
  TcpPacket p = base(t, true);
  p.seq = c_.client_isn + 1;
  p.ack = c_.server_isn + 1;
  p.flags = tcp_flag::ack;
  return p;
}

TcpPacket Conversation::data(std::int64_t t, std::uint32_t len, bool push) {
  TcpPacket p = base(t, true);
  p.seq = static_cast<std::uint32_t>(c_.client_isn + 1 + sent_);
  p.flags = static_cast<std::uint8_t>(tcp_flag::ack | (push ? tcp_flag::psh : 0));
  p.ack = server_next();
  p.payload_len = len;
  sent_ += len;
  return p;
}

TcpPacket Conversation::ack(std::int64_t t, std::uint64_t acked,
                            std::optional<std::uint16_t> window) const {
  TcpPacket p = base(t, false);
  p.seq = server_next();
  p.ack = static_cast<std::uint32_t>(c_.client_isn + 1 + acked);
  p.flags = tcp_flag::ack;
  p.window = window.value_or(c_.window);
  return p;
}

TcpPacket Conversation::fin(std::int64_t t) {
  TcpPacket p = base(t, true);
  p.seq = static_cast<std::uint32_t>(c_.client_isn + 1 + sent_);
  p.ack = server_next();
  p.flags = tcp_flag::fin | tcp_flag::ack;
  return p;
}

TcpPacket Conversation::reply(std::int64_t t, std::uint32_t len, bool push) {
  TcpPacket p = base(t, false);
  p.seq = server_next();
  p.ack = static_cast<std::uint32_t>(c_.client_isn + 1 + sent_);
  p.flags = static_cast<std::uint8_t>(tcp_flag::ack | (push ? tcp_flag::psh : 0));
  p.payload_len = len;
  replied_ += len;
  return p;
}

TcpPacket Conversation::client_ack(std::int64_t t) const {
  TcpPacket p = base(t, true);
  p.seq = static_cast<std::uint32_t>(c_.client_isn + 1 + sent_);
  p.ack = server_next();
  p.flags = tcp_flag::ack;
  return p;
}

}  // namespace ackstall::pcap
