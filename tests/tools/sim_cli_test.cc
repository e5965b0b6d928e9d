// `ackstall sim` end to end: scenario files, --set, JSON, pcap (read back, and by tshark when
// installed), plots (when gnuplot is installed), and one-line errors for bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/cli/run.h"
#include "cli_runner.h"
#include "temp_dir.h"

namespace ackstall::tools {
namespace {

namespace fs = std::filesystem;

std::string example(const std::string& rel) {
  return std::string(ACKSTALL_SOURCE_DIR) + "/examples/" + rel;
}

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  ::pclose(p);
  return out;
}

TEST(SimCli, SummaryOfOneScenario) {
  const auto r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("goodput    0.03"), std::string::npos) << r.out;
  // --set changed the run: the seed's figure is not shown beside it.
  EXPECT_EQ(r.out.find("seed measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not the seed's row any more: --set app.transmitter.writes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("transfer   409600 of 409600 bytes"), std::string::npos) << r.out;
}

// The run told in core's causes (the simulator's own accounts by default): every moment to one
// cause, so the shares sum to the run's duration where the simulator's own stall kinds overlap (a
// quota wait holds its delayed ACK).
TEST(SimCli, CausesSumToTheRun) {
  auto r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=200", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("time_by_cause_s")) << r.out;
  double sum = 0, delayed = 0;
  for (const auto& [cause, seconds] : j["time_by_cause_s"].items()) {
    sum += seconds.get<double>();
    if (cause == "delayed_ack") delayed = seconds.get<double>();
  }
  const double overlapping = j["stalls"]["delayed-ack"]["seconds"].get<double>() +
                             j["stalls"]["quota-wait"]["seconds"].get<double>();
  EXPECT_GT(overlapping, j["duration_s"].get<double>()) << "the simulator's kinds overlap";
  EXPECT_LE(sum, j["duration_s"].get<double>() * 1.0001);
  EXPECT_GT(sum, j["duration_s"].get<double>() * 0.99);
  EXPECT_GT(delayed, 0.95 * sum);
  r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=200"});
  EXPECT_NE(r.out.find("causes     delayed_ack 99."), std::string::npos) << r.out;
  r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=200", "--no-causes"});
  EXPECT_EQ(r.out.find("causes "), std::string::npos) << r.out;
}

// --causes: own (the default), scanner (the run's frames read by the capture scanner) and check
// (both, exit 1 when they disagree); a value outside the set is one line naming it.
TEST(SimCli, CausesOwnScannerAndCheck) {
  const std::vector<std::string> run = {"sim", example("seed/03-unpatched-ackonpush.toml"), "--set",
                                        "app.transmitter.writes=300"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_ackstall(args);
  };
  auto line_of = [](const std::string& out, const std::string& head) {
    const auto at = out.find(head);
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  const auto own = with({});
  const auto scanner = with({"--causes", "scanner"});
  const auto check = with({"--causes", "check"});
  ASSERT_EQ(own.code, 0) << own.err;
  ASSERT_EQ(scanner.code, 0) << scanner.err;
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_NE(line_of(own.out, "causes     send_buffer"), "") << own.out;
  EXPECT_EQ(line_of(own.out, "causes "), line_of(with({"--causes", "own"}).out, "causes "));
  // The seed's row: the two name the same causes with the same figures to the 0.1 %.
  EXPECT_EQ(line_of(own.out, "causes "), line_of(scanner.out, "causes ")) << scanner.out;
  EXPECT_NE(check.out.find("check      the capture scanner's reading of the run agrees"), std::string::npos) << check.out;
  EXPECT_EQ(own.out.find("check "), std::string::npos) << own.out;
  const auto j = nlohmann::json::parse(with({"--causes", "check", "--json"}).out);
  EXPECT_EQ(j["causes_check"], "agree");
  EXPECT_TRUE(j.contains("time_by_cause_s"));
  expect_one_line_error(with({"--causes", "scaner"}), 2, "did you mean scanner");
  // One run only: not the table of several, nor a sweep.
  expect_one_line_error(run_ackstall({"sim", example("seed/01-best-raw-winsock.toml"), example("seed/02-unpatched.toml"),
                                      "--causes", "check"}),
                        2, "not the table");
  expect_one_line_error(with({"--causes", "scanner", "--sweep", "app.transmitter.write_len=1k,2k"}), 2, "not a sweep");
}

TEST(SimCli, JsonAndTable) {
  auto r = run_ackstall({"sim", example("seed/04-patched-l7300.toml"), "--set", "app.transmitter.writes=200",
                    "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bytes_delivered"], 200 * 7300);
  EXPECT_GT(j["goodput_mib_s"].get<double>(), 5.0);
  EXPECT_TRUE(j["seed_mib_s"].is_null());  // --set changed the seed's row
  EXPECT_EQ(j["overrides"], nlohmann::json::array({"app.transmitter.writes"}));
  const auto row = nlohmann::json::parse(
      run_ackstall({"sim", example("seed/04-patched-l7300.toml"), "--json"}).out);
  EXPECT_EQ(row["seed_mib_s"], 11.1);
  r = run_ackstall({"sim", example("seed/02-unpatched.toml"), example("seed/04-patched-l7300.toml"), "--set",
               "app.transmitter.writes=20"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("unpatched stream write (netcat/ttcp)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("patched, ttcp -l 7300"), std::string::npos) << r.out;
  // A row without a stall says "none", not "delayed-ack 0.000 s (0x)".
  const auto patched = r.out.find("patched, ttcp -l 7300");
  const std::string row7300 = r.out.substr(patched, r.out.find('\n', patched) - patched);
  EXPECT_TRUE(row7300.ends_with("  none")) << row7300;
  EXPECT_EQ(r.out.find("(0x)"), std::string::npos) << r.out;
  // Help names flags as they are typed (not "--no-causes{false}").
  const auto help = run_ackstall({"sim", "--help"});
  EXPECT_NE(help.out.find("  --no-causes "), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("{false}"), std::string::npos);
}

// Several scenarios: one row each, the numbers in line however long the names (the lab
// examples' titles are longer than the seed's rows), the first column titled by what it holds.
TEST(SimCli, TableColumnsLineUp) {
  const auto r = run_ackstall({"sim", example("lab/pingpong-l15928.toml"), example("lab/pingpong-seed-chunked.toml"),
                               "--set", "app.transmitter.writes=20"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_TRUE(header.starts_with("scenario ")) << header;  // no seed row among them
  const std::size_t ceiling_end = header.find("ceiling") + std::string("ceiling").size();
  int rows = 0;
  while (std::getline(lines, line)) {
    ASSERT_GE(line.size(), ceiling_end) << line;
    EXPECT_EQ(line.substr(ceiling_end - 5, 5), "11.22") << header << "\n" << line;  // right-aligned under its header
    ++rows;
  }
  EXPECT_EQ(rows, 2);
}

TEST(SimCli, ListsProfilesWithSources) {
  const auto r = run_ackstall({"sim", "--list-profiles"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* p : {"winxp", "openbsd-3.9", "bsd-tick", "freebsd-6", "linux-2.6", "linux-pingpong", "ns3"})
    EXPECT_NE(r.out.find(p), std::string::npos) << p;
  EXPECT_NE(r.out.find("sources: docs/STACKS.md §3"), std::string::npos);
}

TEST(SimCli, BadInputIsOneLineExitTwo) {
  const TempDir dir;
  const fs::path bad = dir / "bad.toml";
  std::ofstream(bad) << "[receiver]\nack.kind = \"solaris\"\n";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"sim", bad.string()},
           {"sim", example("seed/02-unpatched.toml"), "--set", "receiver.ack.wat=1"},
           {"sim", example("seed/02-unpatched.toml"), "--set", "link.mtu=12"},
           {"sim"},
           {"sim", example("seed/02-unpatched.toml"), example("seed/03-unpatched-ackonpush.toml"),
            "--pcap", "x.pcap"}}) {
    const auto r = run_ackstall(args);
    EXPECT_EQ(r.code, kExitUsage) << args.back() << ": " << r.err;
    EXPECT_EQ(r.err.rfind("ackstall: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const auto r = run_ackstall({"sim", bad.string()});
  EXPECT_NE(r.err.find("receiver.ack.kind: unknown value \"solaris\""), std::string::npos) << r.err;
  // A missing file: exit 1 and the words scan uses (issue: sim said 2 and "File does not exist").
  expect_one_line_error(run_ackstall({"sim", "/nonexistent.toml"}), kExitFailure,
                        "sim: /nonexistent.toml: cannot open: No such file or directory");
  expect_one_line_error(run_ackstall({"scan", "/nonexistent.pcap"}), kExitFailure,
                        "/nonexistent.pcap: cannot open: No such file or directory");
}

// The scenario library says "override KEY"; the command line names its flag (sim_keys.h).
TEST(SimCli, OverrideErrorsNameTheSetFlag) {
  auto r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "nope.key=1"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("02-unpatched.toml: --set nope.key: unknown key"), std::string::npos) << r.err;
  r = run_ackstall({"sim", "--defaults", "--set", "x"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("ackstall: --set x: expected key=value"), std::string::npos) << r.err;
}

TEST(SimCli, PcapIsReadableAndAgreesWithSummary) {
  const TempDir dir;
  const fs::path pcap = dir / "run.pcap";
  const auto r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=40",
                          "--pcap", pcap.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::uint64_t expected_frames = 3 /* handshake */ + j["data_segments"].get<std::uint64_t>() +
                                        j["pure_acks"].get<std::uint64_t>();
  auto reader = pcap::FileReader::open(pcap);
  ASSERT_TRUE(reader) << reader.error().message();
  std::uint64_t frames = 0, payload = 0;
  while (true) {
    auto rec = reader->next();
    ASSERT_TRUE(rec) << rec.error().message();
    if (!*rec) break;
    ++frames;
    auto frame = pcap::decode_frame(reader->header().link, (*rec)->data, (*rec)->orig_len, (*rec)->time_ns);
    ASSERT_TRUE(frame) << "record " << frames << ": " << frame.error().reason;
    payload += frame->packet.payload_len;
  }
  // Handshake, data, ACKs, and the FIN exchange: at least the counted frames.
  EXPECT_GE(frames, expected_frames);
  EXPECT_EQ(payload, 40u * 8192u);
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) GTEST_SKIP() << "tshark not installed";
  const std::string count = sh("tshark -r " + pcap.string() + " -T fields -e frame.number 2>/dev/null | wc -l");
  EXPECT_EQ(std::stoull(count), frames);
  const std::string bad_ck = sh("tshark -r " + pcap.string() +
                                " -o tcp.check_checksum:TRUE -Y 'tcp.checksum.status == 0 || ip.checksum.status == 0' "
                                "-o ip.check_checksum:TRUE 2>/dev/null | wc -l");
  EXPECT_EQ(std::stoull(bad_ck), 0u) << "tshark found bad checksums";
}

TEST(SimCli, PlotWritesPng) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot not installed";
  const TempDir dir;
  const fs::path png = dir / "plot.png";
  const auto r = run_ackstall({"sim", example("seed/02-unpatched.toml"), "--set", "app.transmitter.writes=10",
                          "--plot", png.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(png, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  EXPECT_GT(fs::file_size(png), 10000u);
}

}  // namespace
}  // namespace ackstall::tools
