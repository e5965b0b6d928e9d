// ackstall scan: end to end on captures written through pcap::Writer.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/writer.h"
#include "ackstall/cli/run.h"
#include "../pcap/test_capture.h"
#include "cli_runner.h"
#include "temp_dir.h"

namespace ackstall::tools {
namespace {

constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;

// `sends` sends of 3 segments each; a BSD-like receiver ACKs the pair at once and the odd tail
// after 200 ms (the seed's stop-and-wait).
std::vector<pcap::TcpPacket> stalled_packets(int sends = 3) {
  pcap::Conversation c;
  std::vector<pcap::TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = kMs;
  for (int s = 0; s < sends; ++s) {
    v.push_back(c.data(t, 1448));
    v.push_back(c.data(t + 123 * kUs, 1448));
    v.push_back(c.ack(t + 150 * kUs, c.bytes_sent()));
    v.push_back(c.data(t + 246 * kUs, 1448, true));
    t += 246 * kUs + 200 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 100 * kUs;
  }
  return v;
}

std::filesystem::path stalled_capture(const TempDir& dir) {
  const auto path = dir / "stalled.pcap";
  auto w = pcap::Writer::create(path);
  for (const auto& p : stalled_packets()) EXPECT_TRUE(w->write(p));
  EXPECT_TRUE(w->flush());
  return path;
}

TEST(Scan, ReportsEachDelayedAckStall) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  const auto r = run_ackstall({"scan", path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("18 records, 18 TCP segments, 1 connection;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("flow 10.0.0.1:40000 -> 10.0.0.2:5001"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stalls: 3 (3 delayed_ack)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("delayed-ACK hold ~200.0 ms beyond the path (median of 3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seq=2896"), std::string::npos) << r.out;
}

// --reader libpcap gives the same report as the project's reader (the default), word for word.
TEST(Scan, BothReadersGiveTheSameReport) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  const auto own = run_ackstall({"scan", path.string(), "--json"});
  const auto lib = run_ackstall({"scan", path.string(), "--json", "--reader", "libpcap"});
  ASSERT_EQ(own.code, 0) << own.err;
  ASSERT_EQ(lib.code, 0) << lib.err;
  EXPECT_EQ(own.out, lib.out);
  EXPECT_NE(own.out.find("\"stall_count\": 3"), std::string::npos) << own.out;
  const auto bad = run_ackstall({"scan", path.string(), "--reader", "wireshark"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--reader: 'wireshark' is not one of own, libpcap"), std::string::npos) << bad.err;
}

// A snaplen that cuts the SYN's options (window scale, timestamps) is said, once per file.
TEST(Scan, SynOptionsCutBySnaplenAreAWarning) {
  const TempDir dir;
  const auto path = dir / "short.pcap";
  {
    auto w = pcap::Writer::create(path, {.snaplen = 60});  // Ethernet + IPv4 + 26 of the SYN's 40 TCP bytes
    ASSERT_TRUE(w);
    pcap::Conversation c;
    for (const auto& p : {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs), c.data(kMs, 1448)}) {
      ASSERT_TRUE(w->write(p));
    }
    ASSERT_TRUE(w->flush());
  }
  const auto r = run_ackstall({"scan", path.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(": 2 SYN(s) had their TCP options cut by the capture's snaplen (60 bytes): window "
                       "scaling unknown"), std::string::npos) << r.err;
  EXPECT_EQ(run_ackstall({"scan", stalled_capture(dir).string()}).err, "");
}

TEST(Scan, JsonThresholdAndFlowFilter) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  auto r = run_ackstall({"scan", path.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& d = j["flows"][0]["directions"][0];
  EXPECT_EQ(d["stall_count"], 3);
  EXPECT_EQ(d["stalls_by_kind"]["delayed_ack"], 3);
  EXPECT_EQ(d["stalls"][1]["seq"], 3 * 1448 + 2 * 1448);
  EXPECT_EQ(d["stalls"][0]["kind"], "delayed_ack");
  // The hold beyond the path's floor (the prompt ACKs' 27 us).
  EXPECT_NEAR(d["delayed_ack_timeout_ms"].get<double>(), 200.0, 0.05);

  r = run_ackstall({"scan", path.string(), "--json", "--threshold-ms", "250"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["flows"][0]["directions"][0]["stall_count"], 0);
  r = run_ackstall({"scan", path.string(), "--json", "--flow", ":9"});
  EXPECT_TRUE(nlohmann::json::parse(r.out)["flows"].empty());
  r = run_ackstall({"scan", path.string(), "--json", "--flow", ":9", "--flow", "10.0.0.2:5001"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["flows"].size(), 1u);
}

TEST(Scan, BadFilesExitOneOrTwoAndCutShortIsAnalysed) {
  expect_one_line_error(run_ackstall({"scan", "/nonexistent/x.pcap"}), kExitFailure,
                        "ackstall: /nonexistent/x.pcap: cannot open");
  const TempDir dir;
  const auto text = dir / "text.pcap";
  std::ofstream(text) << "hello world, not a capture\n";
  expect_one_line_error(run_ackstall({"scan", text.string()}), kExitUsage, "not a pcap or pcapng capture");
  const auto good = stalled_capture(dir);
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const auto cut = dir / "cut.pcap";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 10);
  const auto r = run_ackstall({"scan", cut.string()});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.err.find("cut short at record 18 (offset"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("stalls: 2 (2 delayed_ack)"), std::string::npos) << r.out;
}

TEST(Scan, LiveCaptureErrorsAreOneLine) {
  // No such interface (or, without root, no permission): one line naming it, exit 1.
  const auto r = run_ackstall({"scan", "-i", "nosuch0", "--duration", "1"});
  expect_one_line_error(r, kExitFailure, "scan -i nosuch0: ");
  EXPECT_TRUE(r.err.find("no such interface") != std::string::npos ||
              r.err.find("no permission to capture") != std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");  // nothing claimed to be capturing
  // No input at all is not "both": it says what to give.
  expect_one_line_error(run_ackstall({"scan"}), kExitUsage, "no capture given: name capture files");
  expect_one_line_error(run_ackstall({"scan", "x.pcap", "-i", "lo"}), kExitUsage, "not both");
  expect_one_line_error(run_ackstall({"scan", "x.pcap", "--duration", "3"}), kExitUsage, "live capture");
}

TEST(Scan, IdleStartsAreCountedWithTheirMedianGap) {
  const TempDir dir;
  const auto r = run_ackstall({"scan", stalled_capture(dir).string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto d = nlohmann::json::parse(r.out)["flows"][0]["directions"][0];
  // Each send's third segment leaves 96 us after the ACK of the first two, and sends 2 and 3
  // start 100 us after the delayed ACK: 5 starts with nothing in flight, median ~0.1 ms (+-9 %).
  EXPECT_EQ(d["idle_starts"], 5);
  EXPECT_NEAR(d["idle_before_send_ms"].get<double>(), 0.1, 0.01) << d.dump();
}

TEST(Scan, PlotDrawsTheBusiestDirection) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  for (const char* ext : {".png", ".svg"}) {
    const auto out = dir / (std::string("flow") + ext);
    const auto r = run_ackstall({"scan", path.string(), "--plot", out.string(), "--plot-window", "0s..0.5s"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("time-sequence graph of 10.0.0.1:40000 -> 10.0.0.2:5001 written to"), std::string::npos)
        << r.out;
    std::ifstream f(out, std::ios::binary);
    std::string head(8, '\0');
    f.read(head.data(), 8);
    EXPECT_EQ(head.substr(0, 4), std::string(ext) == ".png" ? "\x89PNG" : "<?xm") << ext;
  }
  expect_one_line_error(run_ackstall({"scan", path.string(), "--plot", (dir / "x.gif").string()}), kExitUsage,
                        "--plot");
  expect_one_line_error(run_ackstall({"scan", "-", "--plot", (dir / "x.png").string()}), kExitUsage, "not stdin");
  expect_one_line_error(run_ackstall({"scan", path.string(), "--plot-window", "0s..1s"}), kExitUsage,
                        "needs --plot");
}

TEST(Scan, NoTcpIsNotSuccessAndFramesAreNamed) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  auto r = run_ackstall({"scan", path.string(), "--filter", "udp"});
  expect_one_line_error(r, kExitFailure, "no TCP flow");
  r = run_ackstall({"scan", path.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto d = nlohmann::json::parse(r.out)["flows"][0]["directions"][0];
  EXPECT_EQ(d["stalls"][0]["segment_frame"], 7);  // 3 handshake + 2 data + ACK + the tail
  EXPECT_EQ(d["stalls"][0]["release_frame"], 8);
  EXPECT_EQ(d["diagnosis"]["write_size"], 3 * 1448);
  expect_one_line_error(run_ackstall({"scan", path.string(), "--filter", "tcp port"}), kExitUsage, "--filter");
}

TEST(Scan, EmittedScenarioRunsInTheSimulator) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  const auto toml = dir / "emitted.toml";
  auto r = run_ackstall({"scan", path.string(), "--emit-scenario", toml.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_ackstall({"sim", toml.string()});
  EXPECT_EQ(r.code, 0) << r.err << r.out;
}

// The emitted one-way delay is the capture's path, not the hosts: the handshake's round trip
// holds both hosts' stack latency, which the simulator adds itself (sim::TcpProfile).
TEST(Scan, EmittedPathDelayLeavesTheHostsOut) {
  const TempDir dir;
  const auto pcap = dir / "run.pcap", toml = dir / "emitted.toml";
  auto r = run_ackstall({"sim", std::string(ACKSTALL_SOURCE_DIR) + "/examples/seed/02-unpatched.toml", "--set",
                         "app.transmitter.writes=20", "--set", "link.prop_delay=500us", "--pcap", pcap.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_ackstall({"scan", pcap.string(), "--emit-scenario", toml.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(toml);
  std::string line, prop;
  while (std::getline(in, line))
    if (line.starts_with("prop_delay = ")) prop = line;
  ASSERT_FALSE(prop.empty());
  // prop_delay = 'NNNns' (a quoted duration): within the serialisation of the handshake's frames
  const std::string value = prop.substr(prop.find_first_of("'\"") + 1);
  ASSERT_NE(value.find("ns"), std::string::npos) << prop;
  const double ns = std::stod(value);
  EXPECT_NEAR(ns, 500e3, 20e3) << prop;
}

TEST(Scan, UsageErrorsExitTwo) {
  expect_one_line_error(run_ackstall({"scan"}), kExitUsage, "file");
  expect_one_line_error(run_ackstall({"scan", "x.pcap", "--threshold-ms", "-1"}), kExitUsage,
                        "--threshold-ms");
  expect_one_line_error(run_ackstall({"scan", "x.pcap", "--flow", "1.2.3.4:99999"}), kExitUsage,
                        "bad port '99999'");
  // Counts are refused negative, not wrapped round to 2^64 - 1 (unsigned_option.h).
  for (const char* flag : {"--max-stalls", "--top"}) {
    expect_one_line_error(run_ackstall({"scan", "x.pcap", flag, "-1"}), kExitUsage,
                          "a count is a non-negative integer, got '-1'");
  }
}

}  // namespace
}  // namespace ackstall::tools

namespace ackstall::tools {
namespace {

// Several files: one that fails does not stop the others; the exit code is the worst.
TEST(Scan, EveryFileIsReportedWhenOneFails) {
  const TempDir dir;
  const auto good = stalled_capture(dir);
  const auto r = run_ackstall({"scan", (dir / "missing.pcap").string(), good.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.pcap: cannot open"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("stalled.pcap: 18 records"), std::string::npos) << r.out;
}

// gzip- and xz-compressed captures read as they are (tshark does); a corrupt stream is one line.
TEST(Scan, ReadsGzipAndXzCaptures) {
  const TempDir dir;
  const auto plain = stalled_capture(dir);
  const auto plain_report = run_ackstall({"scan", "--json", plain.string()});
  ASSERT_EQ(plain_report.code, 0);
  for (const char* tool : {"gzip", "xz"}) {
    SCOPED_TRACE(tool);
    const auto packed = dir / (std::string("copy.pcap.") + (tool[0] == 'g' ? "gz" : "xz"));
    const std::string cmd = std::string(tool) + " -c '" + plain.string() + "' > '" + packed.string() + "'";
    if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << tool << " is not installed";
    const auto r = run_ackstall({"scan", "--json", packed.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto a = nlohmann::json::parse(r.out), b = nlohmann::json::parse(plain_report.out);
    a.erase("file");
    b.erase("file");
    EXPECT_EQ(a, b);
    // Cut in the middle of the compressed stream.
    const auto cut = dir / (packed.filename().string() + ".cut");
    std::filesystem::copy_file(packed, cut);
    std::filesystem::resize_file(cut, std::filesystem::file_size(packed) / 2);
    const auto c = run_ackstall({"scan", cut.string()});
    EXPECT_NE(c.code, 0);
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
  }
}

// scan --json prints a capture's flows and triage rows one at a time (write_scan_json: each one's
// document built, printed and let go), laid out exactly as nlohmann's dump(2) lays out the whole
// document: with no stall to list (the stall lists are the one part printed a line a stall), the
// output is its own parse dumped again, in the one-capture layout and the several-captures one.
TEST(Scan, JsonStreamsFlowsInDumpsLayout) {
  const TempDir dir;
  const auto path = dir / "three.pcap";
  {
    auto w = pcap::Writer::create(path);
    std::int64_t shift = 0;
    for (const std::uint16_t port : {std::uint16_t{40000}, std::uint16_t{40001}, std::uint16_t{40002}}) {
      for (pcap::TcpPacket p : stalled_packets(4)) {  // 12 data segments: judged by the triage
        if (p.src.port == 40000) p.src.port = port;
        if (p.dst.port == 40000) p.dst.port = port;
        p.time_ns += shift;
        EXPECT_TRUE(w->write(p));
      }
      shift += 2'000 * kMs;
    }
    EXPECT_TRUE(w->flush());
  }
  const auto one = stalled_capture(dir);
  for (const auto& files : {std::vector<std::string>{path.string()}, std::vector<std::string>{path.string(), one.string()}}) {
    SCOPED_TRACE(files.size());
    auto args = std::vector<std::string>{"scan", "--json", "--stall-threshold", "10s"};
    args.insert(args.end(), files.begin(), files.end());
    const auto r = run_ackstall(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(r.out, doc.dump(2) + "\n");
    const auto& first = files.size() == 1 ? doc : doc["captures"][0];
    EXPECT_EQ(first["flows"].size(), 3u);
    EXPECT_EQ(first["triage"]["connections"].size(), 3u);
  }
  // With the stalls listed, every flow is there with its four.
  const auto r = run_ackstall({"scan", "--json", path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["flows"].size(), 3u);
  for (const auto& f : doc["flows"]) EXPECT_EQ(f["directions"][0]["stalls"].size(), 4u) << f["a"];
}

// The JSON writer's markers start with \u0001; a string of the capture's own that does too (a
// relative file name) is printed as it is, not taken for a list.
TEST(Scan, JsonKeepsAFileNameThatLooksLikeAMarker) {
  const TempDir dir;
  const std::string name = "\x01stalls:0x1.pcap";
  std::filesystem::copy_file(stalled_capture(dir), dir / name);
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const auto r = run_ackstall({"scan", "--json", name});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["file"], name);
}

// A FIFO (or bash's <(...), a pipe) is read once from its start, plain or compressed: opening it
// a second time to tell its packing would start past its first bytes ("not a pcap or pcapng
// capture (magic 0x...)", as scan said before).
TEST(Scan, ReadsAFifoOnceFromItsStart) {
  const TempDir dir;
  const auto plain = stalled_capture(dir);
  auto expected = nlohmann::json::parse(run_ackstall({"scan", "--json", plain.string()}).out);
  expected.erase("file");
  std::signal(SIGPIPE, SIG_IGN);  // a writer the reader left behind gets EPIPE
  std::vector<std::filesystem::path> inputs = {plain};
  for (const char* tool : {"gzip", "xz"}) {
    const auto packed = dir / (std::string("copy.pcap.") + tool);
    const std::string cmd = std::string(tool) + " -c '" + plain.string() + "' > '" + packed.string() + "'";
    if (std::system(cmd.c_str()) == 0) inputs.push_back(packed);
  }
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& input : inputs) {
    SCOPED_TRACE(input.filename().string());
    std::ifstream in(input, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::atomic<bool> scanned = false;
    std::thread writer([&] {
      const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for the reader
      if (fd < 0) return;
      for (std::size_t off = 0; off < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + off, std::min<std::size_t>(bytes.size() - off, 100));
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
      }
      ::close(fd);
      // A reader that opens the FIFO again (the fault this test is for) would wait for a writer
      // for ever: one comes and goes, and it reads an end instead of hanging the test.
      while (!scanned) {
        if (const int again = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); again >= 0) ::close(again);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    const auto r = run_ackstall({"scan", "--json", fifo.string()});
    scanned = true;
    // A reader that failed before opening the FIFO would leave the writer waiting in open(2).
    const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    writer.join();
    if (unblock >= 0) ::close(unblock);
    ASSERT_EQ(r.code, 0) << r.err;
    auto got = nlohmann::json::parse(r.out);
    EXPECT_EQ(got["file"], fifo.string());
    got.erase("file");
    EXPECT_EQ(got, expected);
  }
  // What reads its capture twice refuses a FIFO at once (a second open would wait for a writer).
  expect_one_line_error(run_ackstall({"scan", fifo.string(), "--plot", (dir / "x.png").string()}), kExitUsage,
                        "not stdin or a pipe");
  expect_one_line_error(run_ackstall({"scan", fifo.string(), "--annotate", (dir / "x.pcapng").string()}), kExitUsage,
                        "not stdin or a pipe");
}

// A pcapng capture whose Interface Statistics Block counts drops (pcapng §4.6: isb_ifdrop) is
// warned about in one line and the count is in the JSON.
TEST(Scan, WarnsOfThePacketsTheCapturerDropped) {
  const TempDir dir;
  const auto src = std::filesystem::path(ACKSTALL_SOURCE_DIR) / "tests/data/lab-captures/classic-8192-unpatched-v4.a.pcapng";
  std::ifstream in(src, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // ISB, little-endian like the section: type 5, length 40, interface 0, timestamp 0, then the
  // option isb_ifdrop (code 5, 8 bytes) = 1262, opt_endofopt, and the length again.
  const auto le32 = [](std::uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; };
  std::string isb = le32(5) + le32(40) + le32(0) + le32(0) + le32(0);
  isb += std::string{5, 0, 8, 0} + le32(1262) + le32(0) + std::string(4, '\0') + le32(40);
  ASSERT_EQ(isb.size(), 40u);
  const auto path = dir / "dropped.pcapng";
  std::ofstream(path, std::ios::binary) << bytes << isb;
  auto r = run_ackstall({"scan", path.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("dropped 1262 packets (pcapng statistics)"), std::string::npos) << r.err;
  r = run_ackstall({"scan", "--json", path.string()});
  EXPECT_EQ(nlohmann::json::parse(r.out)["capture_drops"], 1262);
}

// --emit-scenario replays what it wrote: the simulator's goodput beside the capture's, and the
// prediction with the library's chunking.
TEST(Scan, EmittedScenarioIsReplayedBesideTheCapture) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  const auto r = run_ackstall({"scan", path.string(), "--emit-scenario", (dir / "s.toml").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto at = r.out.find("note: replayed in the simulator: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("with robust chunking the simulator predicts", at), std::string::npos) << r.out;
}

// --annotate writes the capture back as pcapng with comments on each stall's two frames and the
// verdict on the first data segment; the copy scans to the same stalls.
TEST(Scan, AnnotateWritesTheStallsBackAsComments) {
  const TempDir dir;
  const auto path = stalled_capture(dir);
  const auto out = dir / "annotated.pcapng";
  auto r = run_ackstall({"scan", path.string(), "--annotate", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("written with 7 commented frames"), std::string::npos) << r.out;  // 3 stalls x 2 + verdict
  std::ifstream in(out, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(bytes.find("ackstall: stall #3 of 10.0.0.1:40000 -> 10.0.0.2:5001 (delayed_ack"), std::string::npos);
  EXPECT_NE(bytes.find("Limited by delayed-ACK stalls"), std::string::npos);
  const auto a = nlohmann::json::parse(run_ackstall({"scan", "--json", path.string()}).out);
  const auto b = nlohmann::json::parse(run_ackstall({"scan", "--json", out.string()}).out);
  EXPECT_EQ(a["flows"][0]["directions"][0]["stalls"], b["flows"][0]["directions"][0]["stalls"]);
  r = run_ackstall({"scan", "-", "--annotate", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--annotate writes back one capture file"), std::string::npos) << r.err;
}

// --merge reads a ring buffer's files as one capture whatever the order they are named in, and
// -j 2 reports what -j 1 does, in the order given.
TEST(Scan, MergeReadsARingBufferAsOneCaptureAndJobsKeepTheOrder) {
  const TempDir dir;
  const auto whole = stalled_capture(dir);
  // The same packets in two files, the later one named first.
  const std::vector<pcap::TcpPacket> v = stalled_packets();
  const auto first = dir / "b-first.pcap", second = dir / "a-second.pcap";
  {
    auto w1 = pcap::Writer::create(first), w2 = pcap::Writer::create(second);
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_TRUE((i < 9 ? w1 : w2)->write(v[i]));
    EXPECT_TRUE(w1->flush());
    EXPECT_TRUE(w2->flush());
  }
  const auto merged = run_ackstall({"scan", "--json", "--merge", second.string(), first.string()});
  ASSERT_EQ(merged.code, 0) << merged.err;
  const auto one = nlohmann::json::parse(run_ackstall({"scan", "--json", whole.string()}).out);
  const auto m = nlohmann::json::parse(merged.out);
  EXPECT_EQ(m["records"], one["records"]);
  EXPECT_EQ(m["flows"][0]["directions"][0]["stalls"], one["flows"][0]["directions"][0]["stalls"]);
  EXPECT_EQ(m["flows"][0]["directions"][0]["stall_count"], 3);

  const auto serial = run_ackstall({"scan", whole.string(), first.string(), second.string()});
  const auto parallel = run_ackstall({"scan", "-j", "2", whole.string(), first.string(), second.string()});
  EXPECT_EQ(parallel.out, serial.out);
  EXPECT_EQ(parallel.code, serial.code);
}

TEST(Scan, ARequestResponseLinkIsInBothDirectionsTextAndJson) {
  // A request in two pieces, Nagle x delayed ACK (tests/pcap/test_capture.h): the responder's
  // waits are the requester's stalls, said in both directions' reports (issue 37).
  const TempDir dir;
  const auto path = dir / "reqresp.pcap";
  {
    auto w = pcap::Writer::create(path);
    for (const auto& p : pcap::testing::nagle_split_requests(16)) EXPECT_TRUE(w->write(p));
    EXPECT_TRUE(w->flush());
  }
  const auto r = run_ackstall({"scan", "--json", path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto dirs = nlohmann::json::parse(r.out)["flows"][0]["directions"];
  ASSERT_EQ(dirs.size(), 2u);
  const auto& client = dirs[0]["sender"] == "10.0.0.1:40000" ? dirs[0] : dirs[1];
  const auto& server = dirs[0]["sender"] == "10.0.0.1:40000" ? dirs[1] : dirs[0];
  ASSERT_TRUE(server["waits_on_peer"].is_object()) << server.dump(2);
  EXPECT_EQ(server["waits_on_peer"]["cause"], "delayed_ack");
  EXPECT_EQ(server["waits_on_peer"]["linked_waits"], 15);
  EXPECT_EQ(server["waits_on_peer"], client["delays_peer"]);
  EXPECT_TRUE(server["delays_peer"].is_null());
  EXPECT_TRUE(client["waits_on_peer"].is_null());
  // The facts the text's lines rest on.
  EXPECT_EQ(client["no_handshake"], false);
  EXPECT_TRUE(client["path_full"].is_boolean());
  EXPECT_EQ(client["nagle_holds"], 16);
  EXPECT_TRUE(client["diagnosis"]["too_little"].is_null());

  const auto text = run_ackstall({"scan", path.string()});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("request/response: its delayed-ACK stalls also hold up the peer's reply: the peer (10.0.0.2:5001 -> 10.0.0.1:40000) waits on them in 15 of its 15 waits"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("request/response: 15 of its 15 waits for the peer's data overlap the peer's delayed-ACK "
                          "stalls"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fix 1: fix the peer's delayed-ACK stalls in 10.0.0.1:40000 -> 10.0.0.2:5001"),
            std::string::npos) << text.out;
}

TEST(Scan, JsonSaysWhenNoHandshakeWasCaptured) {
  // The same exchange without its three handshake segments: the text says so (a warning, the
  // evidence rules), and JSON now carries the fact.
  const TempDir dir;
  const auto path = dir / "midstream.pcap";
  {
    auto w = pcap::Writer::create(path);
    const auto v = pcap::testing::nagle_split_requests(16);
    for (std::size_t i = 3; i < v.size(); ++i) EXPECT_TRUE(w->write(v[i]));
    EXPECT_TRUE(w->flush());
  }
  const auto r = run_ackstall({"scan", "--json", path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  // Named: a range-for over a member of a temporary would read it freed (before C++23's P2718).
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["flows"][0]["directions"].empty());
  for (const auto& d : j["flows"][0]["directions"]) EXPECT_EQ(d["no_handshake"], true);
}

}  // namespace
}  // namespace ackstall::tools
