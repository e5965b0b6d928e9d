// The delayed-ACK mechanism's one sentence (pcap/mechanism.h): what a capture fills gives scan's
// verdict; what a simulator config fills adds the cut, Nagle's tail and the receiver's rule.
#include "ackstall/pcap/mechanism.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace ackstall::pcap {
namespace {

using std::chrono::milliseconds;

TEST(Mechanism, FromACapturesFigures) {
  LoneSegmentHold m;
  m.in_flight_limit = 8192;
  m.write_size = 15928;
  m.segments = 11;
  m.hold = milliseconds(200);
  m.holds = 198;
  m.waits = 200;
  EXPECT_EQ(word(m),
            "The sender stops with at most 8192 bytes in flight (each 15928-byte write in 11 segments) and the "
            "receiver holds the ACK of the lone last segment for its delayed-ACK timer (~200.0 ms): 198 of 200 "
            "waits are that hold.");
  m.write_size.reset();  // a capture with gaps: no write size
  m.hold = std::chrono::microseconds(4200);
  EXPECT_EQ(word(m),
            "The sender stops with at most 8192 bytes in flight and the receiver holds the ACK of the lone last "
            "segment for its delayed-ACK timer (~4.200 ms): 198 of 200 waits are that hold.");
}

TEST(Mechanism, FromASimulatorConfig) {
  LoneSegmentHold m;
  m.in_flight_limit = 8192;
  m.quota_per_send = true;
  m.write_size = 8192;
  m.segments = 2;
  m.cut_by = "seed";
  m.pieces = 2;
  m.nagle = "classic";
  m.nagle_tail = 892;
  m.receiver = "BSD";
  m.acks_every = 2;
  m.hold = milliseconds(200);
  m.holds = 1;
  m.held = milliseconds(200);
  EXPECT_EQ(word(m),
            "The sender stops with at most 8192 bytes in flight (each 8192-byte write, cut by the seed policy into 2 "
            "pieces, the last in 2 segments; Nagle (classic) holds the 892-byte tail until the one before it is "
            "ACKed, which leaves segment 1 alone; SO_SNDBUF charged per whole send) and the receiver (BSD, ACKs "
            "every second segment) holds the ACK of the lone segment for its delayed-ACK timer (~200.0 ms): 1 wait, "
            "0.200 s in all.");
  m = {};
  m.in_flight_limit = 1000;
  m.write_size = 1000;
  m.segments = 1;
  m.receiver = "Linux";
  m.hold = milliseconds(40);
  m.hold_minimum = true;
  m.holds = 3;
  m.held = milliseconds(120);
  EXPECT_EQ(word(m),
            "The sender stops with at most 1000 bytes in flight (each 1000-byte write in 1 segment) and the receiver "
            "(Linux) holds the ACK of the lone last segment for its delayed-ACK timer (~40.0 ms and up): 3 waits, "
            "0.120 s in all.");
}

}  // namespace
}  // namespace ackstall::pcap
