// The lab's state file: written and read back; corrupt or truncated is a one-line Error naming
// the file and the problem, never the defaults.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ackstall/lab/state_file.h"
#include "../tools/temp_dir.h"

namespace ackstall::lab {
namespace {

using tools::TempDir;  // tests/tools/temp_dir.h

const std::string kGood = "rate=20mbit\ntimestamps=0\nack_mode=classic\nqueue_bytes=4000\nrtt_ns=30000000\nreceiver_acks=windows\n"
    "drop_tails=0.25\ndrop_seed=37\n";

std::string error_of(std::string_view text) {
  const auto r = parse_state(text, "/run/x.conf");
  EXPECT_FALSE(r) << "parsed: " << text;
  if (r) return {};
  const std::string m = r.error().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.rfind("/run/x.conf: ", 0), 0u) << m;
  return m;
}

TEST(LabStateFile, RoundTripsThroughAFile) {
  const TempDir dir;
  const std::string path = (dir / "lab.conf").string();
  const LabConfig cfg{"20mbit", false, ttcp::AckMode::classic, 4000, 1500, 30'000'000, ReceiverAcks::windows, 0.25, 37};
  ASSERT_TRUE(write_state_file(path, cfg));
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, kGood);
  const auto back = read_state_file(path);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, cfg);
}

TEST(LabStateFile, DefaultsRoundTrip) {
  const auto back = parse_state(format_state(LabConfig{}), "x");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, LabConfig{});
}

TEST(LabStateFile, TheSmallestProbabilitiesRoundTrip) {
  // Fixed notation of a tiny probability is long (1e-300: "0.", 299 zeros and a 1): written whole
  // (a 32-byte buffer cut it before).
  for (const double p : {1e-9, 3e-40, 1e-300}) {
    LabConfig cfg;
    cfg.drop_tails = p;
    const auto back = parse_state(format_state(cfg), "x");
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->drop_tails, p);
  }
}

TEST(LabStateFile, AFileWithoutTheMiddleHostReadsAsNoDelayLine) {
  const auto back = parse_state("rate=20mbit\ntimestamps=0\nack_mode=classic\nqueue_bytes=4000\n", "x");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->rtt_ns, 0);
  EXPECT_EQ(back->queue_bytes, 4000);
  EXPECT_EQ(back->receiver_acks, ReceiverAcks::kernel);  // a file from before --receiver-acks
}

TEST(LabStateFile, AFileWithoutTailDropsDropsNothing) {
  const auto back = parse_state("rate=20mbit\ntimestamps=0\nack_mode=classic\nqueue_bytes=4000\nrtt_ns=0\n", "x");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->drop_tails, 0.0);  // a file from before --drop-tails
  EXPECT_FALSE(back->middle());
}

TEST(LabStateFile, ABadTailDropIsAnError) {
  EXPECT_EQ(error_of("drop_tails=1.5\n"), "/run/x.conf: line 1: drop_tails: '1.5' is outside [0, 1]");
  EXPECT_EQ(error_of("drop_tails=often\n"),
            "/run/x.conf: line 1: drop_tails: 'often' is not a probability (a number from 0 to 1, e.g. 0.3)");
  EXPECT_EQ(error_of("drop_seed=-1\n"), "/run/x.conf: line 1: drop_seed: expected a non-negative integer, got '-1'");
}

TEST(LabStateFile, UnknownReceiverAcksIsAnError) {
  EXPECT_EQ(error_of("receiver_acks=solaris\n"),
            "/run/x.conf: line 1: receiver_acks: expected kernel or windows, got 'solaris'");
}

TEST(LabStateFile, MissingFileIsAnErrorNamingIt) {
  const TempDir dir;
  const std::string path = (dir / "absent.conf").string();
  const auto r = read_state_file(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "cannot read " + path + ": No such file or directory");
}

TEST(LabStateFile, EmptyOrTruncatedIsAnError) {
  EXPECT_EQ(error_of(""), "/run/x.conf: empty file");
  EXPECT_EQ(error_of(kGood.substr(0, kGood.size() - 3)), "/run/x.conf: truncated: the last line has no newline");
  EXPECT_EQ(error_of("rate=20mbit\ntimestamps=0\n"), "/run/x.conf: no ack_mode line (truncated?)");
}

TEST(LabStateFile, CorruptLinesAreErrorsNamingTheLine) {
  EXPECT_EQ(error_of("rate=20mbit\ngarbage\n"), "/run/x.conf: line 2: expected KEY=VALUE, got 'garbage'");
  EXPECT_EQ(error_of("colour=blue\n"), "/run/x.conf: line 1: unknown key 'colour'");
  EXPECT_EQ(error_of("rate=20mbit\nrate=20mbit\n"), "/run/x.conf: line 2: rate given twice");
  EXPECT_EQ(error_of("timestamps=yes\n"), "/run/x.conf: line 1: timestamps: expected 0 or 1, got 'yes'");
  EXPECT_EQ(error_of("ack_mode=sometimes\n"),
            "/run/x.conf: line 1: ack_mode: expected default, classic or quickack, got 'sometimes'");
  EXPECT_EQ(error_of("queue_bytes=-1\n"), "/run/x.conf: line 1: queue_bytes: expected a non-negative integer, got '-1'");
  EXPECT_EQ(error_of("rtt_ns=-5\n"), "/run/x.conf: line 1: rtt_ns: expected a non-negative integer, got '-5'");
  EXPECT_EQ(error_of("queue_bytes=12x\n"), "/run/x.conf: line 1: queue_bytes: expected a non-negative integer, got '12x'");
  EXPECT_EQ(error_of("rate=1bit\n"), "/run/x.conf: line 1: rate: rate '1bit' is outside 8kbit..100gbit");
  EXPECT_EQ(error_of("rate=fast\n").rfind("/run/x.conf: line 1: rate: ", 0), 0u);
}

}  // namespace
}  // namespace ackstall::lab
