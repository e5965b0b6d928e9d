// Wireshark's dissectors as an independent check of the writer: tshark must read the capture,
// agree on packet count, frame lengths, flags and payload lengths, and find no bad checksum.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

bool have_tshark() { return std::system("tshark --version >/dev/null 2>&1") == 0; }

TEST(Tshark, AgreesOnCountsLengthsFlagsAndChecksums) {
  if (!have_tshark()) GTEST_SKIP() << "tshark not installed: Debian package tshark";
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(1'000), c.syn_ack(2'000), c.handshake_ack(3'000)};
  for (int i = 0; i < 20; ++i) {
    v.push_back(c.data(10'000 + i * 1'000, i == 19 ? 777 : 1448, i == 19));
    if (i % 2 == 1) v.push_back(c.ack(10'500 + i * 1'000, c.bytes_sent()));
  }
  v.push_back(c.fin(100'000));
  v.push_back(c.ack(101'000, c.bytes_sent() + 1));
  for (std::uint32_t snaplen : {128u, 262144u}) {
    const auto path = testing::write_capture("ts" + std::to_string(snaplen) + ".pcap", v, snaplen);
    // Status 1 = good; 2 = unverified (TCP checksums need the whole segment captured).
    const std::string out = run("tshark -n -r " + path.string() +
                                " -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE " +
                                "-T fields -E separator=, -e frame.len -e frame.cap_len "
                                "-e tcp.flags -e tcp.len -e tcp.checksum.status "
                                "-e ip.checksum.status -e tcp.options.mss_val "
                                "-e tcp.options.wscale.shift -e frame.time_epoch 2>/dev/null");
    std::istringstream lines(out);
    std::string line;
    std::size_t i = 0;
    while (std::getline(lines, line)) {
      ASSERT_LT(i, v.size()) << line;
      const TcpPacket& p = v[i];
      const std::uint32_t hdr = 14 + 20 + 20 + (p.has(tcp_flag::syn) ? 20 : 12);
      std::ostringstream want;
      char flags[8];
      std::snprintf(flags, sizeof flags, "0x%04x", p.flags);
      const std::uint32_t len = hdr + p.payload_len;
      want << len << ',' << std::min(len, snaplen) << ',' << flags << ',' << p.payload_len << ','
           << (len <= snaplen ? "1" : "2") << ",1," << (p.options.mss ? "1460" : "") << ','
           << (p.options.wscale ? "7" : "") << ',';
      EXPECT_EQ(line.substr(0, want.str().size()), want.str()) << "packet " << i + 1;
      // Nanosecond timestamps survive: 0.000001000 for the first packet.
      if (i == 0) {
        EXPECT_NE(line.find("0.000001000"), std::string::npos) << line;
      }
      ++i;
    }
    EXPECT_EQ(i, v.size()) << out;
  }
}

}  // namespace
}  // namespace ackstall::pcap
