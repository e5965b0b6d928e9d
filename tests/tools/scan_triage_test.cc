// ackstall scan on a capture of many connections: the triage table first, tiny connections
// folded into one line, then only the reports of the connections with a problem; the same in
// --json; --report as one HTML file; --compare of a capture before and after a fix.
// The busy capture is made here from simulator runs: three transfers of the seed's unpatched
// sender (every write ends in a 200 ms delayed ACK), five healthy ones, and 1,000 connections of a
// handshake and two data segments, each with a client port of its own.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/writer.h"
#include "cli_runner.h"
#include "temp_dir.h"

namespace ackstall::tools {
namespace {

namespace fs = std::filesystem;

std::string example(const std::string& name) { return (fs::path(ACKSTALL_SOURCE_DIR) / "examples" / name).string(); }

std::vector<pcap::TcpPacket> packets_of(const fs::path& file) {
  auto r = pcap::FileReader::open(file);
  EXPECT_TRUE(r) << file;
  std::vector<pcap::TcpPacket> out;
  if (!r) return out;
  for (;;) {
    auto rec = r->next();
    if (!rec || !*rec) break;
    auto f = pcap::decode_frame(r->header().link, (*rec)->data, (*rec)->orig_len, (*rec)->time_ns);
    if (f) out.push_back(f->packet);
  }
  return out;
}

// Appends `pkts` as a connection with client port `port`, starting at `*t` (ns), and moves `*t`
// past its end.
void append(pcap::Writer& w, const std::vector<pcap::TcpPacket>& pkts, std::uint16_t port, std::int64_t* t) {
  const std::uint16_t client = pkts.front().src.port;
  const std::int64_t t0 = pkts.front().time_ns;
  for (pcap::TcpPacket p : pkts) {
    if (p.src.port == client) p.src.port = port;
    if (p.dst.port == client) p.dst.port = port;
    p.time_ns = *t + (p.time_ns - t0);
    ASSERT_TRUE(w.write(p));
  }
  *t += pkts.back().time_ns - t0 + 1'000'000;
}

class BusyCapture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    const auto stalled = *dir_ / "stalled.pcap";
    const auto healthy = *dir_ / "healthy.pcap";
    ASSERT_EQ(run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=12", "--pcap",
                            stalled.string()}).code, 0);
    ASSERT_EQ(run_ackstall({"sim", example("seed/01-best-raw-winsock.toml"), "--set", "app.transmitter.writes=40",
                            "--pcap", healthy.string()}).code, 0);
    const auto s = packets_of(stalled), h = packets_of(healthy);
    ASSERT_GT(h.size(), 20u);
    auto w = pcap::Writer::create(*dir_ / "busy.pcap");
    ASSERT_TRUE(w);
    std::int64_t t = 0;
    std::uint16_t port = 40000;
    for (int i = 0; i < 3; ++i) append(*w, s, port++, &t);
    for (int i = 0; i < 5; ++i) append(*w, h, port++, &t);
    const std::vector<pcap::TcpPacket> tiny(h.begin(), h.begin() + 5);  // handshake, two segments
    for (int i = 0; i < 1000; ++i) append(*w, tiny, port++, &t);
    ASSERT_TRUE(w->flush());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path busy() { return *dir_ / "busy.pcap"; }
  static TempDir* dir_;
};
TempDir* BusyCapture::dir_ = nullptr;

// The start of the triage table's row N ("\n     1  ").
std::string table_row(int row) {
  const std::string n = std::to_string(row);
  return "\n  " + std::string(4 - n.size(), ' ') + n + "  ";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(BusyCapture, TriageTableFirstThenOnlyTheProblemReports) {
  const auto r = run_ackstall({"scan", busy().string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1008 connections; stall threshold"), std::string::npos) << r.out.substr(0, 400);
  const auto triage = r.out.find("triage: 8 connections judged, 3 with a problem; 1000 under 10 data segments: not judged");
  ASSERT_NE(triage, std::string::npos) << r.out.substr(0, 600);
  // The three stalled transfers head the table.
  for (int row = 1; row <= 3; ++row) {
    const auto line = r.out.find(table_row(row)) + 1;  // past the newline
    ASSERT_NE(line, 0u) << row;
    const std::string text = r.out.substr(line, r.out.find('\n', line) - line);
    EXPECT_EQ(count(text, "delayed_ack"), 2u) << text;  // limited by, and the problem
  }
  // Then the reports of those three connections only (one direction with data each).
  EXPECT_EQ(count(r.out, "  verdict: "), 3u);
  EXPECT_GT(r.out.find("the reports of the connections with a problem"), triage);
  // --top 1: one row, one connection's report; --all: every judged connection's.
  const auto top = run_ackstall({"scan", busy().string(), "--top", "1"});
  EXPECT_NE(top.out.find("... 7 more (--top N, --all)"), std::string::npos);
  EXPECT_EQ(count(top.out, "  verdict: "), 1u);
  // --all: every connection's report, the 1,000 not judged after the judged ones.
  const auto all = run_ackstall({"scan", busy().string(), "--all"});
  EXPECT_EQ(count(all.out, "  verdict: "), 1008u);
  EXPECT_NE(all.out.find("the connections not judged:"), std::string::npos);
}

// Connections too small to judge, and nothing else: their reports as before, after the line
// that says why there is no table.
TEST_F(BusyCapture, OnlyTinyConnectionsAreStillReported) {
  auto w = pcap::Writer::create(*dir_ / "tiny.pcap");
  ASSERT_TRUE(w);
  const auto h = packets_of(*dir_ / "healthy.pcap");
  const std::vector<pcap::TcpPacket> tiny(h.begin(), h.begin() + 5);
  std::int64_t t = 0;
  append(*w, tiny, 41000, &t);
  append(*w, tiny, 41001, &t);
  ASSERT_TRUE(w->flush());
  const auto r = run_ackstall({"scan", (*dir_ / "tiny.pcap").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("triage: 0 connections judged, 0 with a problem; 2 under 10 data segments: not judged"),
            std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "\nflow 10.0.0.1:4100"), 2u) << r.out;
}

TEST_F(BusyCapture, JsonHasTheSameTriage) {
  const auto r = run_ackstall({"scan", busy().string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& t = j["triage"];
  EXPECT_EQ(t["judged"], 8);
  EXPECT_EQ(t["problems"], 3);
  EXPECT_EQ(t["not_judged"], 1000);
  ASSERT_EQ(t["connections"].size(), 8u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t["connections"][i]["problem"], "delayed_ack");
  EXPECT_TRUE(t["connections"][3]["problem"].is_null());
  EXPECT_GT(t["connections"][0]["lost_s"].get<double>(), 1.0);  // 11 stalls of ~200 ms
}

TEST_F(BusyCapture, HtmlReportIsOneFileWithAGraphPerProblem) {
  const auto page = *dir_ / "report.html";
  const auto r = run_ackstall({"scan", busy().string(), "--report", page.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(page);
  std::stringstream s;
  s << in.rdbuf();
  const std::string html = s.str();
  EXPECT_EQ(count(html, "<svg "), 3u);
  EXPECT_EQ(count(html, "<tr class=\"problem\">"), 3u);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // nothing fetched
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_LT(html.size(), 2'000'000u);
}

// What a browser makes of the page: headless Chromium loads it, runs its script (which marks the
// body data-ready and records any error in data-error) and dumps the DOM.
TEST_F(BusyCapture, HtmlReportLoadsInABrowserWithoutErrors) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) GTEST_SKIP() << "chromium not installed (Debian package chromium)";
  const auto page = *dir_ / "report.html";
  ASSERT_EQ(run_ackstall({"scan", busy().string(), "--report", page.string()}).code, 0);
  const auto dom = *dir_ / "dom.html";
  // --enable-logging=stderr --v=0: every console message, errors included, as a CONSOLE line.
  const std::string cmd = "chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --user-data-dir=" +
                          (*dir_ / "profile").string() + " --virtual-time-budget=3000 --dump-dom file://" + page.string() +
                          " > " + dom.string() + " 2> " + (*dir_ / "chromium.log").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto text = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string d = text(dom);
  EXPECT_NE(d.find("data-ready=\"1\""), std::string::npos) << d.substr(0, 300);
  EXPECT_EQ(d.find("data-error="), std::string::npos);
  EXPECT_EQ(text(*dir_ / "chromium.log").find(":CONSOLE"), std::string::npos) << text(*dir_ / "chromium.log");
}

// A chunk plan of many equal chunks is written with its count, once ("11 x 1448"), not spelled
// out eleven times.
TEST(ScanFix, AChunkPlanOfEqualChunksIsCounted) {
  const auto lab = fs::path(ACKSTALL_SOURCE_DIR) / "tests" / "data" / "lab-captures";
  const auto r = run_ackstall({"scan", (lab / "classic-15928-unpatched-v4.a.pcapng").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("a 15928-byte write goes as 11 x 1448\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1448 + 1448 + 1448"), std::string::npos);
}

// "Without it at most X": never faster than the link the capture shows. The seed's patched
// defaults (8 KiB SO_SNDBUF on 100 Mbit/s) said 55.63 MB/s before the bound met the line rate.
TEST(ScanFix, TheBoundWithoutTheProblemIsNoFasterThanTheLink) {
  const TempDir dir;
  ASSERT_EQ(run_ackstall({"sim", example("seed/07-patched-defaults.toml"), "--set", "app.transmitter.writes=40", "--pcap",
                          (dir / "p.pcap").string()}).code, 0);
  const auto r = run_ackstall({"scan", (dir / "p.pcap").string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& g = j["flows"][0]["directions"][0]["diagnosis"];
  ASSERT_EQ(g["problem"], "send_buffer") << g.dump();
  EXPECT_LE(g["goodput_without_problem_bytes_per_s"].get<double>(), 100e6 / 8) << g.dump();
}

TEST(ScanCompare, TheLabsFixReadsAsStallsGoneAndUnrelatedCapturesMatchNothing) {
  const auto lab = fs::path(ACKSTALL_SOURCE_DIR) / "tests" / "data" / "lab-captures";
  const auto r = run_ackstall({"scan", "--compare", (lab / "classic-15928-unpatched-v4.a.pcapng").string(),
                               (lab / "classic-15928-seed-v4.a.pcapng").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("10.77.0.1 -> 10.77.0.2:5001  (1 connection before, 1 connection after)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: delayed-ACK stalls gone: no problem cause is left (delayed_ack 97.2 % -> 71.5 %"), std::string::npos) << r.out;
  const auto j = run_ackstall({"scan", "--compare", "--json", (lab / "classic-15928-unpatched-v4.a.pcapng").string(),
                               (lab / "classic-15928-seed-v4.a.pcapng").string()});
  EXPECT_EQ(nlohmann::json::parse(j.out)["matched"][0]["verdict"], "gone");
  const auto none = run_ackstall({"scan", "--compare", (lab / "classic-15928-unpatched-v4.a.pcapng").string(),
                                  (lab / "classic-15000-unpatched-v6.a.pcapng").string()});
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.out.find("nothing matched"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("only before: 10.77.0.1 -> 10.77.0.2:5001"), std::string::npos) << none.out;
  const auto usage = run_ackstall({"scan", "--compare", (lab / "classic-15928-seed-v4.a.pcapng").string()});
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("give two capture files, BEFORE and AFTER"), std::string::npos) << usage.err;
}

}  // namespace
}  // namespace ackstall::tools
