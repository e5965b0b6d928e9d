// analysis/sim_pcap.h: the simulator's pcap at a capture point (wire, sender, receiver), written
// in timestamp order.
#include "ackstall/analysis/sim_pcap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../pcap/test_capture.h"
#include "../tools/temp_dir.h"

namespace ackstall::analysis {
namespace {

using sim::Direction;
using sim::Nanos;

sim::WireFrame frame(Direction dir, std::int64_t time, std::int64_t arrival, std::uint32_t seq) {
  sim::WireFrame f;
  f.dir = dir;
  f.time = Nanos(time);
  f.arrival = Nanos(arrival);
  f.reported = Nanos(time);
  f.seq = seq;
  f.src_ip = dir == Direction::sender_to_receiver ? 0x0a000001 : 0x0a000002;
  f.dst_ip = dir == Direction::sender_to_receiver ? 0x0a000002 : 0x0a000001;
  f.src_port = 5001;
  f.dst_port = 5002;
  f.flags = core::tcp_flag::ack;
  f.payload_len = dir == Direction::sender_to_receiver ? 100 : 0;
  return f;
}

using pcap::TcpPacket;
using tools::TempDir;  // tests/tools/temp_dir.h
using pcap::testing::read_capture;  // tests/pcap/test_capture.h

// Data frames 1 and 3 (on the wire at 100 and 200, in at 300 and 400), an ACK 2 between them
// (out at 150, in at 160): each point stamps and orders them its own way.
std::vector<TcpPacket> capture(CapturePoint at, const TempDir& dir) {
  const auto path = dir / "t.pcap";
  auto w = pcap::Writer::create(path);
  EXPECT_TRUE(w);
  PcapTraceSink sink(std::move(*w), at, /*epoch_ns=*/0);
  sink.on_frame(frame(Direction::sender_to_receiver, 100, 300, 1));
  sink.on_frame(frame(Direction::receiver_to_sender, 150, 160, 2));
  sink.on_frame(frame(Direction::sender_to_receiver, 200, 400, 3));
  const auto done = sink.finish();
  EXPECT_TRUE(done) << done.error().message();
  return read_capture(path);
}

TEST(SimPcap, EachCapturePointStampsAndOrdersItsOwnWay) {
  const TempDir dir;
  const auto wire = capture(CapturePoint::wire, dir);
  ASSERT_EQ(wire.size(), 3u);
  EXPECT_EQ(wire[0].time_ns, 100);
  EXPECT_EQ(wire[1].time_ns, 150);
  EXPECT_EQ(wire[2].time_ns, 200);
  const auto sender = capture(CapturePoint::sender, dir);  // the ACK at its last bit in
  ASSERT_EQ(sender.size(), 3u);
  EXPECT_EQ(sender[1].seq, 2u);
  EXPECT_EQ(sender[1].time_ns, 160);
  const auto receiver = capture(CapturePoint::receiver, dir);  // data at its last bit in: the ACK first
  ASSERT_EQ(receiver.size(), 3u);
  EXPECT_EQ(receiver[0].seq, 2u);
  EXPECT_EQ(receiver[0].time_ns, 150);
  EXPECT_EQ(receiver[1].seq, 1u);
  EXPECT_EQ(receiver[1].time_ns, 300);
  EXPECT_EQ(receiver[2].time_ns, 400);
}

TEST(SimPcap, CapturePointsByName) {
  EXPECT_EQ(parse_capture_point("wire"), CapturePoint::wire);
  EXPECT_EQ(parse_capture_point("sender"), CapturePoint::sender);
  EXPECT_EQ(parse_capture_point("receiver"), CapturePoint::receiver);
  EXPECT_FALSE(parse_capture_point("tap"));
}

}  // namespace
}  // namespace ackstall::analysis
