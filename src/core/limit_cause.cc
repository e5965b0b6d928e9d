#include "ackstall/core/limit_cause.h"

namespace ackstall::core {

std::string_view to_string(LimitCause c) noexcept {
  switch (c) {
    case LimitCause::network: return "network";
    case LimitCause::loss: return "loss";
    case LimitCause::receiver_window: return "receiver_window";
    case LimitCause::send_buffer: return "send_buffer";
    case LimitCause::delayed_ack: return "delayed_ack";
    case LimitCause::sender_app: return "sender_app";
    case LimitCause::peer_reply: return "peer_reply";
    case LimitCause::not_captured: return "not_captured";
  }
  return "?";
}

std::string_view describe(LimitCause c) noexcept {
  switch (c) {
    case LimitCause::network: return "the network (path full: line rate or congestion window)";
    case LimitCause::loss: return "loss and recovery";
    case LimitCause::receiver_window: return "the receiver's window";
    case LimitCause::send_buffer: return "the sender's buffer or per-send quota";
    case LimitCause::delayed_ack: return "delayed-ACK stalls";
    case LimitCause::sender_app: return "the sending application";
    case LimitCause::peer_reply: return "the peer's reply (request/response)";
    case LimitCause::not_captured: return "not in the capture";
  }
  return "?";
}

std::string_view rule_of(LimitCause c) noexcept {
  switch (c) {
    case LimitCause::network:
      return "segments back to back, or a wait of one round trip for ACKs that clock out the congestion window "
             "(RFC 5681 3.1; T-RAT bandwidth/congestion limited)";
    case LimitCause::loss:
      return "a retransmission, and the time until the lost data is ACKed (RFC 6298, RFC 5681 3.2, RFC 6675)";
    case LimitCause::receiver_window:
      return "window full or zero, or a wait ended by a window update (RFC 9293 3.8.6; T-RAT receiver limited)";
    case LimitCause::send_buffer:
      return "in flight plateaus below both windows while the sender waits for ACKs (T-RAT transport limited; "
             "Winsock KB214397, STACKS 1)";
    case LimitCause::delayed_ack:
      return "a lone segment's ACK held beyond the path's round trip, at most 0.5 s (RFC 1122 4.2.3.2; STACKS 1-4)";
    case LimitCause::sender_app:
      return "nothing in flight and nothing sent (T-RAT application limited)";
    case LimitCause::peer_reply:
      return "nothing sent until the peer's data arrived, or the ACK came with the peer's data (request/response)";
    case LimitCause::not_captured:
      return "ACKs for data the capture never saw (the capture dropped segments)";
  }
  return "?";
}

}  // namespace ackstall::core
