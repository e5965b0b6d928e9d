// `ackstall sim --pcap-at` end to end (the sink itself: tests/analysis/sim_pcap_test.cc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "../pcap/test_capture.h"
#include "ackstall/cli/run.h"
#include "cli_runner.h"
#include "temp_dir.h"

namespace ackstall::tools {
namespace {

using pcap::TcpPacket;
using pcap::testing::read_capture;  // tests/pcap/test_capture.h

bool from_sender(const TcpPacket& p) { return p.src.addr == 0x0a000001; }  // 10.0.0.1 in every example

// A whole run: the receiver's capture has the wire's frames, in time order; each direction keeps
// its order; every frame from the sender comes later than on the wire by at least its own
// serialisation at 100 Mbit/s (80 ns a byte, 54 bytes of headers), every ACK at the same time.
TEST(SimPcap, ReceiverCaptureOfARun) {
  const TempDir dir;
  const std::string scen = std::string(ACKSTALL_SOURCE_DIR) + "/examples/seed/02-unpatched.toml";
  std::vector<std::vector<TcpPacket>> caps;
  for (const char* at : {"wire", "receiver"}) {
    const auto path = (dir / (std::string(at) + ".pcap")).string();
    const auto r = run_ackstall({"sim", scen, "--set", "app.transmitter.writes=20", "--pcap", path, "--pcap-at", at});
    ASSERT_EQ(r.code, 0) << r.err;
    caps.push_back(read_capture(path));
  }
  const auto& wire = caps[0];
  const auto& rx = caps[1];
  ASSERT_EQ(wire.size(), rx.size());
  ASSERT_GT(rx.size(), 100u);
  for (std::size_t i = 1; i < rx.size(); ++i) EXPECT_LE(rx[i - 1].time_ns, rx[i].time_ns) << "record " << i;
  for (const bool data : {true, false}) {
    std::vector<TcpPacket> a, b;
    for (const TcpPacket& r : wire)
      if (from_sender(r) == data) a.push_back(r);
    for (const TcpPacket& r : rx)
      if (from_sender(r) == data) b.push_back(r);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].seq, b[i].seq) << "frame " << i;
      if (data)
        EXPECT_GE(b[i].time_ns - a[i].time_ns, 80 * (54 + static_cast<std::int64_t>(a[i].payload_len))) << "frame " << i;
      else
        EXPECT_EQ(b[i].time_ns, a[i].time_ns) << "frame " << i;
    }
  }
}

// Where the capture is taken does not change what `ackstall scan` finds: the seed's unpatched row,
// 20 writes, 20 delayed-ACK stalls of ~200 ms from a tap, the sender's host and the receiver's.
TEST(SimPcap, ScanFindsTheSameStallsAtEveryCapturePoint) {
  const TempDir dir;
  const std::string scen = std::string(ACKSTALL_SOURCE_DIR) + "/examples/seed/02-unpatched.toml";
  for (const char* at : {"wire", "sender", "receiver"}) {
    const auto path = (dir / (std::string(at) + ".pcap")).string();
    ASSERT_EQ(run_ackstall({"sim", scen, "--set", "app.transmitter.writes=20", "--pcap", path, "--pcap-at", at}).code, 0);
    const auto r = run_ackstall({"scan", path, "--json"});
    ASSERT_EQ(r.code, 0) << at << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& d = j["flows"][0]["directions"][0];
    EXPECT_EQ(d["stall_count"], 20) << at;
    EXPECT_EQ(d["stalls_by_kind"]["delayed_ack"], 20) << at;
    EXPECT_NEAR(d["delayed_ack_timeout_ms"].get<double>(), 200.0, 0.2) << at;
    EXPECT_EQ(d["diagnosis"]["write_size"], 8192) << at;
  }
}

TEST(SimPcap, CapturePointNeedsAPcap) {
  const auto r = run_ackstall({"sim", "--defaults", "--pcap-at", "receiver"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("--pcap"), std::string::npos) << r.err;
  const TempDir dir;
  const auto bad = run_ackstall({"sim", "--defaults", "--pcap", (dir / "x.pcap").string(), "--pcap-at", "tap"});
  EXPECT_EQ(bad.code, kExitUsage) << bad.err;
  EXPECT_NE(bad.err.find("tap"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ackstall::tools
