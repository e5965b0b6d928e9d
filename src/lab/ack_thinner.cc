#include "ackstall/lab/ack_thinner.h"

#include <algorithm>
#include <cstring>

namespace ackstall::lab {
namespace {

// PACKET_VNET_HDR's struct virtio_net_hdr (linux/virtio_net.h), host byte order on a packet
// socket (packet(7)): gso_type at byte 1, gso_size at bytes 4-5.
constexpr std::size_t kVnetHdr = 10;
constexpr std::size_t kEthHdr = 14;

std::uint16_t be16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}
// Sequence-space order (RFC 9293 3.4: modulo 2^32).
bool seq_le(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) <= 0; }
bool seq_lt(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) < 0; }

}  // namespace

std::optional<TcpFrame> parse_tcp_frame(std::span<const std::byte> frame) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(frame.data());
  const std::size_t n = frame.size();
  if (n < kVnetHdr + kEthHdr) return std::nullopt;
  TcpFrame t;
  if (b[1] != 0) {  // gso_type != VIRTIO_NET_HDR_GSO_NONE
    std::memcpy(&t.gso_size, b + 4, 2);
  }
  const std::uint8_t* eth = b + kVnetHdr;
  const std::uint16_t type = be16(eth + 12);
  const std::uint8_t* ip = eth + kEthHdr;
  const std::size_t left = n - kVnetHdr - kEthHdr;
  std::size_t ip_hdr = 0, ip_total = 0;
  if (type == 0x0800) {
    if (left < 20 || (ip[0] >> 4) != 4) return std::nullopt;
    ip_hdr = static_cast<std::size_t>(ip[0] & 0x0fu) * 4;
    if (ip_hdr < 20 || ip[9] != 6) return std::nullopt;          // protocol TCP
    if ((be16(ip + 6) & 0x3fff) != 0) return std::nullopt;       // MF or an offset: a fragment
    ip_total = be16(ip + 2);
    std::memcpy(t.src.data(), ip + 12, 4);
    std::memcpy(t.dst.data(), ip + 16, 4);
  } else if (type == 0x86dd) {
    if (left < 40 || (ip[0] >> 4) != 6 || ip[6] != 6) return std::nullopt;  // next header TCP
    ip_hdr = 40;
    ip_total = 40 + std::size_t{be16(ip + 4)};
    std::memcpy(t.src.data(), ip + 8, 16);
    std::memcpy(t.dst.data(), ip + 24, 16);
  } else {
    return std::nullopt;
  }
  if (left < ip_hdr + 20) return std::nullopt;
  const std::uint8_t* tcp = ip + ip_hdr;
  const std::size_t tcp_hdr = static_cast<std::size_t>(tcp[12] >> 4) * 4;
  if (tcp_hdr < 20 || left < ip_hdr + tcp_hdr) return std::nullopt;
  t.sport = be16(tcp);
  t.dport = be16(tcp + 2);
  t.seq = be32(tcp + 4);
  t.ack = be32(tcp + 8);
  t.flags = tcp[13];
  t.window = be16(tcp + 14);
  // The IP length, not the frame's: a short frame is padded to Ethernet's minimum.
  const std::size_t total = std::min(ip_total, left);
  t.payload = total > ip_hdr + tcp_hdr ? static_cast<std::uint32_t>(total - ip_hdr - tcp_hdr) : 0;
  return t;
}

FrameFlowKey frame_flow_key(const std::array<std::uint8_t, 16>& addr1, std::uint16_t port1,
                            const std::array<std::uint8_t, 16>& addr2, std::uint16_t port2) noexcept {
  FrameFlowKey k{};
  std::copy(addr1.begin(), addr1.end(), k.begin());
  std::copy(addr2.begin(), addr2.end(), k.begin() + 16);
  k[32] = static_cast<std::uint8_t>(port1 >> 8);
  k[33] = static_cast<std::uint8_t>(port1);
  k[34] = static_cast<std::uint8_t>(port2 >> 8);
  k[35] = static_cast<std::uint8_t>(port2);
  return k;
}

void AckThinner::on_sender_frame(std::span<const std::byte> frame) {
  const auto t = parse_tcp_frame(frame);
  if (!t) return;
  Flow& f = flows_[frame_flow_key(t->dst, t->dport, t->src, t->sport)];
  if (t->flags & kTcpSyn) {
    f = Flow{};  // a new connection on these ports
    return;
  }
  if (t->flags & kTcpRst) {
    flows_.erase(frame_flow_key(t->dst, t->dport, t->src, t->sport));
    return;
  }
  const std::uint32_t end = t->seq + t->payload;
  if (t->payload > 0) {
    // A GSO frame holds payload / gso_size segments (the last one shorter), each on the wire alone.
    const std::uint32_t step = t->gso_size > 0 ? t->gso_size : t->payload;
    for (std::uint32_t off = 0; off < t->payload; off += step) {
      const std::uint32_t e = t->seq + std::min(t->payload, off + step);
      // New data only: a retransmission's end was recorded (or ACKed) already.
      if (f.ends.empty() ? (!f.any_forwarded || seq_lt(f.last_ack, e)) : seq_lt(f.ends.back(), e)) {
        f.ends.push_back(e);
      }
    }
  }
  if (t->flags & kTcpFin) f.fin_end = end + 1;
}

int AckThinner::covered(Flow& f, std::uint32_t ack) {
  int n = 0;
  while (!f.ends.empty() && seq_le(f.ends.front(), ack)) {
    f.ends.pop_front();
    ++n;
  }
  return n;
}

void AckThinner::forwarded(Flow& f, std::uint32_t ack, std::uint16_t window) {
  (void)covered(f, ack);
  f.any_forwarded = true;
  f.last_ack = ack;
  f.last_window = window;
  f.segments = 0;
  f.held.clear();
}

AckThinner::Verdict AckThinner::on_receiver_frame(std::int64_t now_ns, std::span<const std::byte> frame) {
  const auto t = parse_tcp_frame(frame);
  if (!t) {
    ++passed_;
    return Verdict::pass;
  }
  const Key k = frame_flow_key(t->src, t->sport, t->dst, t->dport);
  Flow& f = flows_[k];
  const bool has_ack = (t->flags & kTcpAck) != 0;
  const auto pass = [&] {
    ++passed_;
    if (has_ack) forwarded(f, t->ack, t->window);
    return Verdict::pass;
  };
  if (t->flags & kTcpRst) {
    ++passed_;
    flows_.erase(k);
    return Verdict::pass;
  }
  // SYN/FIN, data, or no ACK at all: Windows sends these whatever its delayed-ACK state.
  if ((t->flags & (kTcpSyn | kTcpFin)) || t->payload > 0 || !has_ack) return pass();
  const bool holding = !f.held.empty();
  if (holding || f.any_forwarded) {
    const std::uint32_t ref = holding ? f.held_ack : f.last_ack;
    const std::uint16_t ref_window = holding ? f.held_window : f.last_window;
    if (seq_lt(t->ack, ref)) return pass();  // older than what the sender has or will get: harmless
    if (t->ack == ref) {
      // The held ACK again with another window (Linux's window update after a read, tcp_cleanup_rbuf):
      // it replaces the held one and waits with it.
      if (holding && t->window != ref_window) {
        ++replaced_;
        f.held.assign(frame.begin(), frame.end());
        f.held_window = t->window;
        return Verdict::hold;
      }
      // A duplicate ACK (out-of-order data: RFC 5681 §4.2, ACKed at once) or a window update
      // of an ACK already forwarded.
      return pass();
    }
  }
  // The sender's FIN is ACKed at once (the sim's endpoint, include/ackstall/sim/ack_policy.h).
  if (f.fin_end && seq_le(*f.fin_end, t->ack)) return pass();
  // The segments this ACK newly covers (at least one: it advanced).
  f.segments += std::max(1, covered(f, t->ack));
  if (f.segments >= rule_.ack_frequency) return pass();  // ack_count.cc: ++count_ >= every_
  if (holding) {
    ++replaced_;
  } else {
    ++held_;
    f.due_ns = now_ns + rule_.delack_timeout_ns;  // the timer, armed by the first unACKed segment
  }
  f.held.assign(frame.begin(), frame.end());
  f.held_ack = t->ack;
  f.held_window = t->window;
  return Verdict::hold;
}

AckThinner::Flow* AckThinner::earliest_due() {
  Flow* best = nullptr;
  for (auto& [k, f] : flows_) {
    if (!f.held.empty() && (!best || f.due_ns < best->due_ns)) best = &f;
  }
  return best;
}

std::optional<std::int64_t> AckThinner::next_due() const {
  std::optional<std::int64_t> due;
  for (const auto& [k, f] : flows_) {
    if (!f.held.empty() && (!due || f.due_ns < *due)) due = f.due_ns;
  }
  return due;
}

}  // namespace ackstall::lab
