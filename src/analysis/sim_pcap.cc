#include "ackstall/analysis/sim_pcap.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>

namespace ackstall::analysis {
namespace {

constexpr pcap::MacAddr kSenderMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
constexpr pcap::MacAddr kReceiverMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

}  // namespace

std::optional<CapturePoint> parse_capture_point(std::string_view name) noexcept {
  for (std::size_t i = 0; i < std::size(kCapturePointNames); ++i)
    if (kCapturePointNames[i] == name) return static_cast<CapturePoint>(i);
  return std::nullopt;
}

PcapTraceSink::PcapTraceSink(pcap::Writer writer, CapturePoint at, std::int64_t epoch_ns)
    : writer_(std::move(writer)), at_(at), epoch_ns_(epoch_ns) {
  consumer_ = [this](const pcap::TcpPacket& p) { return writer_->write(p); };
}

sim::Nanos PcapTraceSink::stamp(const sim::WireFrame& f, CapturePoint at) noexcept {
  const bool from_sender = f.dir == sim::Direction::sender_to_receiver;
  switch (at) {
    case CapturePoint::wire: break;
    case CapturePoint::sender: return from_sender ? f.time : f.arrival;
    case CapturePoint::receiver: return from_sender ? f.arrival : f.time;
  }
  return f.time;
}

pcap::TcpPacket PcapTraceSink::to_packet(const sim::WireFrame& f, std::int64_t epoch_ns, CapturePoint at) {
  const bool from_sender = f.dir == sim::Direction::sender_to_receiver;
  pcap::TcpPacket p;
  p.time_ns = epoch_ns + stamp(f, at).count();
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

void PcapTraceSink::write_until(std::int64_t stamp) {
  while (!held_.empty() && held_.top().packet.time_ns <= stamp) {
    if (!error_)
      if (auto r = consumer_(held_.top().packet); !r) error_ = r.error().message();
    held_.pop();
  }
}

void PcapTraceSink::on_frame(const sim::WireFrame& frame) {
  if (frame.dropped || error_) return;
  held_.push(Held{reported_++, to_packet(frame, epoch_ns_, at_)});
  // Every frame reported from now on is stamped at or after frame.reported (WireFrame).
  write_until(epoch_ns_ + frame.reported.count());
}

pcap::Result<void> PcapTraceSink::finish() {
  write_until(std::numeric_limits<std::int64_t>::max());
  if (error_) return pcap::make_error(*error_);
  if (writer_) return writer_->flush();
  return {};
}

}  // namespace ackstall::analysis
