// CaptureSource on pcapng as dumpcap writes it and on every kind of damage a pcapng file can
// carry: the fuzz corpus's named files (fuzz/corpus/capture_source/, made from one simulated
// transfer: `ackstall sim ... --pcap`, `editcap -F pcapng`, then one block altered each). The
// project's reader (the default) is checked record for record against libpcap's on every file
// both accept.
#include "ackstall/pcap/capture_source.h"

#include <gtest/gtest.h>

#include <algorithm>
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

Read read_all(const std::string& name, CaptureSource::Reader reader = CaptureSource::Reader::own) {
  const auto bytes = corpus(name);
  Read out;
  auto s = CaptureSource::open_memory(bytes, name, {}, reader);
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
  for (const Case c : {Case{"bad-block-length.pcapng", "record 1 (offset 108): block of type 1 has a length of 7"},
                       Case{"interface-out-of-range.pcapng", "record 1 (offset 140): a packet on interface 9"},
                       Case{"truncated-option.pcapng", "record 1 (offset 108): interface 0: option 9 of 200 bytes runs past"},
                       Case{"regress-timestamp-overflow", "record 10 (offset 1228): timestamp 16711489411354737614 "
                                                          "(if_tsresol 9) out of range"},
                       Case{"empty", "not a pcap or pcapng capture"}}) {
    SCOPED_TRACE(c.file);
    const Read r = read_all(c.file);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->rfind(std::string(c.file) + ": ", 0), 0u) << *r.error;
    EXPECT_NE(r.error->find(c.says), std::string::npos) << *r.error;
    EXPECT_EQ(r.error->find('\n'), std::string::npos) << *r.error;
    // libpcap refuses each of them too (with its own words).
    EXPECT_TRUE(read_all(c.file, CaptureSource::Reader::libpcap).error);
  }
}

// A second section in the other byte order is valid pcapng (draft §4.1): read as tshark reads it
// (34 records), where libpcap 1.10 stops with "pcapng block size ... is too large".
TEST(CaptureSource, SectionInTheOtherByteOrderIsRead) {
  const Read r = read_all("second-section-big-endian.pcapng");
  EXPECT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.records, read_all("small.pcapng").records);
  EXPECT_TRUE(read_all("second-section-big-endian.pcapng", CaptureSource::Reader::libpcap).error);
}

// The project's reader against libpcap's on every file both read: the same records, byte for byte,
// with the same times, and the same cut.
TEST(CaptureSource, OwnReaderGivesLibpcapsRecords) {
  for (const char* file : {"small.pcapng", "classic-pcap", "unknown-block.pcapng", "cut.pcapng"}) {
    SCOPED_TRACE(file);
    const auto bytes = corpus(file);
    auto own = CaptureSource::open_memory(bytes, file, {}, CaptureSource::Reader::own);
    auto lib = CaptureSource::open_memory(bytes, file, {}, CaptureSource::Reader::libpcap);
    ASSERT_TRUE(own && lib);
    EXPECT_EQ(own->link(), lib->link());
    EXPECT_EQ(own->pcapng(), lib->pcapng());
    std::uint64_t n = 0;
    while (true) {
      auto a = own->next();
      auto b = lib->next();
      ASSERT_TRUE(a && b);
      ASSERT_EQ(a->has_value(), b->has_value()) << "record " << n + 1;
      if (!*a) break;
      ++n;
      EXPECT_EQ((*a)->number, (*b)->number);
      EXPECT_EQ((*a)->time_ns, (*b)->time_ns);
      EXPECT_EQ((*a)->orig_len, (*b)->orig_len);
      EXPECT_TRUE(std::ranges::equal((*a)->data, (*b)->data)) << "record " << n;
    }
    EXPECT_GT(n, 0u);
    EXPECT_EQ(own->cut_short().has_value(), lib->cut_short().has_value());
  }
}

TEST(CaptureSource, FilterIsCompiledAsTcpdumpDoes) {
  const auto bytes = corpus("small.pcapng");
  for (const auto reader : {CaptureSource::Reader::own, CaptureSource::Reader::libpcap}) {
    EXPECT_FALSE(CaptureSource::open_memory(bytes, "x", "tcp port five", reader));
    auto s = CaptureSource::open_memory(bytes, "x", "tcp[tcpflags] & tcp-syn != 0", reader);
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
}

}  // namespace
}  // namespace ackstall::pcap
