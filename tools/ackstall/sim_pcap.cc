#include "sim_pcap.h"

namespace ackstall::tools {
namespace {

constexpr pcap::MacAddr kSenderMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
constexpr pcap::MacAddr kReceiverMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

}  // namespace

pcap::TcpPacket PcapTraceSink::to_packet(const sim::WireFrame& f, std::int64_t epoch_ns) {
  const bool from_sender = f.dir == sim::Direction::sender_to_receiver;
  pcap::TcpPacket p;
  p.time_ns = epoch_ns + f.time.count();
  p.src = {f.src_ip, f.src_port, from_sender ? kSenderMac : kReceiverMac};
  p.dst = {f.dst_ip, f.dst_port, from_sender ? kReceiverMac : kSenderMac};
  p.seq = f.seq;
  p.ack = f.ack;
  p.flags = f.flags;
  p.window = f.window;
  p.options = f.options;  // one type: core::TcpOptions
  p.payload_len = f.payload_len;
  return p;
}

void PcapTraceSink::on_frame(const sim::WireFrame& frame) {
  if (frame.dropped || error_) return;
  if (auto r = writer_.write(to_packet(frame, epoch_ns_)); !r) error_ = r.error().message();
}

}  // namespace ackstall::tools
