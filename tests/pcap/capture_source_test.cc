// CaptureSource (libpcap) on pcapng as dumpcap writes it and on every kind of damage a pcapng file
// can carry: the fuzz corpus's named files (fuzz/corpus/capture_source/, made from one simulated
// transfer: `ackstall sim ... --pcap`, `editcap -F pcapng`, then one block altered each).
#include "ackstall/pcap/capture_source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ackstall/pcap/scan_file.h"

namespace ackstall::pcap {
namespace {

std::vector<std::uint8_t> corpus(const std::string& name) {
  std::ifstream f(std::string(ACKSTALL_SOURCE_DIR) + "/fuzz/corpus/capture_source/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

struct Read {
  std::uint64_t records = 0;
  std::optional<std::string> error, cut;
};

Read read_all(const std::string& name) {
  const auto bytes = corpus(name);
  Read out;
  auto s = CaptureSource::open_memory(bytes, name);
  if (!s) {
    out.error = s.error().message();
    return out;
  }
  for (;;) {
    auto r = s->next();
    if (!r) {
      out.error = r.error().message();
      break;
    }
    if (!*r) break;
    ++out.records;
  }
  out.records = s->records_read();
  out.cut = s->cut_short();
  return out;
}

TEST(CaptureSource, PcapngReadsAsTheClassicFileDoes) {
  const Read ng = read_all("small.pcapng"), classic = read_all("classic-pcap");
  EXPECT_FALSE(ng.error) << *ng.error;
  EXPECT_FALSE(classic.error) << *classic.error;
  EXPECT_GT(ng.records, 30u);
  EXPECT_EQ(ng.records, classic.records);
}

TEST(CaptureSource, UnknownBlocksAreSkipped) {
  const Read r = read_all("unknown-block.pcapng");
  EXPECT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.records, read_all("small.pcapng").records);
}

TEST(CaptureSource, CutShortKeepsTheRecordsBeforeTheCut) {
  const Read r = read_all("cut.pcapng");
  EXPECT_FALSE(r.error);
  ASSERT_TRUE(r.cut);
  EXPECT_EQ(r.records + 1, read_all("small.pcapng").records);
  EXPECT_EQ(r.cut->rfind("cut.pcapng: cut short at record ", 0), 0u) << *r.cut;
  EXPECT_NE(r.cut->find("(offset "), std::string::npos) << *r.cut;
}

// Each damaged block: one line naming the file, and the record and byte offset where it is.
TEST(CaptureSource, DamagedBlocksAreOneLineNamingWhere) {
  struct Case {
    const char* file;
    const char* says;
  };
  for (const Case c : {Case{"bad-block-length.pcapng", "not a pcap or pcapng capture (block in pcapng dump file has a length of 7"},
                       Case{"interface-out-of-range.pcapng", "record 1 (offset 140): a packet arrived on interface 9"},
                       Case{"second-section-big-endian.pcapng", "(offset 4436): pcapng block size"},
                       Case{"truncated-option.pcapng", "block of type 1 in pcapng dump file is too short"},
                       Case{"regress-timestamp-overflow", "record 10 (offset 1228): timestamp 16711489411 s out of range"},
                       Case{"empty", "not a pcap or pcapng capture"}}) {
    SCOPED_TRACE(c.file);
    const Read r = read_all(c.file);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->rfind(std::string(c.file) + ": ", 0), 0u) << *r.error;
    EXPECT_NE(r.error->find(c.says), std::string::npos) << *r.error;
    EXPECT_EQ(r.error->find('\n'), std::string::npos) << *r.error;
  }
}

TEST(CaptureSource, FilterIsCompiledAsTcpdumpDoes) {
  const auto bytes = corpus("small.pcapng");
  EXPECT_FALSE(CaptureSource::open_memory(bytes, "x", "tcp port five"));
  auto s = CaptureSource::open_memory(bytes, "x", "tcp[tcpflags] & tcp-syn != 0");
  ASSERT_TRUE(s) << s.error();
  std::uint64_t passed = 0, last = 0;
  for (auto r = s->next(); r && *r; r = s->next()) {
    ++passed;
    last = (*r)->number;
  }
  EXPECT_EQ(passed, 2u);                       // SYN and SYN/ACK
  EXPECT_EQ(last, 2u);                         // frame numbers count every record
  EXPECT_EQ(s->records_read(), read_all("small.pcapng").records);
}

}  // namespace
}  // namespace ackstall::pcap
