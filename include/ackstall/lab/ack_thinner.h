// ackstall lab: the ACK thinner (sans-IO), which makes a Linux receiver ACK like Windows as seen
// from the wire (`lab up --receiver-acks windows`, lab/delay_line.h).
//
// The receiver's kernel ACKs every segment at once (route metric `quickack 1` in its namespace,
// ip-route(8); tcp_in_quickack_mode), and the thinner, in the middle host next to the receiver,
// forwards those ACKs as Windows would have sent them. Windows' rule, the simulator's
// AckPolicyKind::windows (include/ackstall/sim/ack_count.h, src/sim/ack_count.cc; sources in
// docs/STACKS.md §1: KB328890 "New registry entry for controlling the TCP Acknowledgment (ACK)
// behavior", TcpAckFrequency default 2; TcpDelAckTicks default 2 x 100 ms):
//   - every `ack_frequency`-th in-order data segment not yet ACKed is ACKed at once (Windows
//     counts segments, whatever their size; a PSH does not force an ACK);
//   - otherwise the ACK waits for the delayed-ACK timer, armed when the first unACKed segment
//     arrived and not moved by later ones: `delack_timeout` after it the ACK goes out;
//   - any ACK sent covers everything received (the count and the timer start again).
// The thinner sees ACKs, not the receiver's queue: a pure ACK that advances the acknowledged
// sequence is held (replacing any ACK it already holds: ACKs are cumulative) and forwarded when
// the segments it covers since the last forwarded ACK reach `ack_frequency` or when the timer
// expires. The segments are counted on the data direction (on_sender_frame records where each
// segment ends). What the sim's endpoint ACKs at once for every policy passes at once here:
// an ACK of a FIN, an ACK that carries data, SYN/FIN/RST, and a duplicate ACK (same ack and
// window as the last one, which Linux sends for out-of-order data: RFC 5681 §3.2, 4.2).
// A frame that is not TCP over IPv4/IPv6 passes at once. Flows are kept apart by address and port.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace ackstall::lab {

// What the thinner reads from a frame: PACKET_VNET_HDR's 10-byte header, Ethernet, IPv4 or
// IPv6 (no extension headers), TCP.
struct TcpFrame {
  std::array<std::uint8_t, 16> src{}, dst{};  // IPv4 as the first 4 bytes
  std::uint16_t sport = 0, dport = 0;
  std::uint32_t seq = 0, ack = 0;
  std::uint8_t flags = 0;   // TCP header byte 13: FIN 0x01 SYN 0x02 RST 0x04 PSH 0x08 ACK 0x10
  std::uint16_t window = 0;  // as on the wire (unscaled)
  std::uint32_t payload = 0;  // TCP payload bytes (a GSO frame: all of its segments')
  std::uint16_t gso_size = 0;  // > 0: a GSO frame of segments this long (the vnet header's)
};
inline constexpr std::uint8_t kTcpFin = 0x01, kTcpSyn = 0x02, kTcpRst = 0x04, kTcpPsh = 0x08, kTcpAck = 0x10;

// One direction of a connection as a map key: the first end's address and port, then the
// other's (the thinner keys by the receiver's end first, the tail dropper by the sender's).
using FrameFlowKey = std::array<std::uint8_t, 36>;
FrameFlowKey frame_flow_key(const std::array<std::uint8_t, 16>& addr1, std::uint16_t port1,
                            const std::array<std::uint8_t, 16>& addr2, std::uint16_t port2) noexcept;

// nullopt: not TCP over IPv4/IPv6 (or too short, or an IP fragment).
std::optional<TcpFrame> parse_tcp_frame(std::span<const std::byte> frame);

// Windows' delayed-ACK settings (their defaults: docs/STACKS.md §1).
struct WindowsAckRule {
  int ack_frequency = 2;                        // TcpAckFrequency
  std::int64_t delack_timeout_ns = 200'000'000;  // TcpDelAckTicks x 100 ms
};

class AckThinner {
 public:
  using Rule = WindowsAckRule;
  enum class Verdict {
    pass,  // forward the frame now (any ACK held for its flow is dropped: this one covers it)
    hold,  // the thinner keeps a copy and hands it out later (release)
  };

  explicit AckThinner(Rule rule = {}) : rule_(rule) {}

  // A frame from the sender's side (towards the receiver): records where its segments end.
  void on_sender_frame(std::span<const std::byte> frame);
  // A frame from the receiver's side that arrived at now_ns.
  Verdict on_receiver_frame(std::int64_t now_ns, std::span<const std::byte> frame);
  // When the earliest held ACK is due; nullopt when none is held.
  std::optional<std::int64_t> next_due() const;
  // Hands every held ACK due at now_ns to `out`, earliest first.
  template <class Out>
  void release(std::int64_t now_ns, Out&& out) {
    for (;;) {
      Flow* f = earliest_due();
      if (!f || f->due_ns > now_ns) return;
      out(std::span<const std::byte>(f->held));
      ++timed_out_;
      forwarded(*f, f->held_ack, f->held_window);
    }
  }

  std::uint64_t passed() const noexcept { return passed_; }        // forwarded at once
  std::uint64_t held() const noexcept { return held_; }            // ACKs held
  std::uint64_t replaced() const noexcept { return replaced_; }    // held ACKs a newer one replaced
  std::uint64_t timed_out() const noexcept { return timed_out_; }  // held ACKs the timer forwarded

 private:
  // The receiver's side of a connection: its address and port, then the sender's.
  using Key = FrameFlowKey;
  struct Flow {
    std::deque<std::uint32_t> ends;   // ends of the sender's segments not yet ACKed, ascending
    std::optional<std::uint32_t> fin_end;  // the sequence after the sender's FIN
    bool any_forwarded = false;
    std::uint32_t last_ack = 0;       // the last ACK forwarded
    std::uint16_t last_window = 0;
    int segments = 0;                 // in-order segments received and not yet ACKed
    std::vector<std::byte> held;      // the held ACK (empty: none)
    std::uint32_t held_ack = 0;
    std::uint16_t held_window = 0;
    std::int64_t due_ns = 0;          // the timer, while an ACK is held
  };
  Flow* earliest_due();
  // An ACK of `ack` with `window` left for the sender: the count and the timer start again.
  void forwarded(Flow& f, std::uint32_t ack, std::uint16_t window);
  // Segments of the sender's that `ack` covers and that no forwarded or held ACK covered yet.
  int covered(Flow& f, std::uint32_t ack);

  Rule rule_;
  std::map<Key, Flow> flows_;
  std::uint64_t passed_ = 0, held_ = 0, replaced_ = 0, timed_out_ = 0;
};

}  // namespace ackstall::lab
