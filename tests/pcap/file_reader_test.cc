#include "ackstall/pcap/file_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/writer.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

// Builds classic pcap bytes by hand in either byte order.
struct Builder {
  bool big = false;
  std::vector<std::uint8_t> bytes;
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      const int shift = big ? 24 - 8 * i : 8 * i;
      bytes.push_back(static_cast<std::uint8_t>(v >> shift));
    }
  }
  void u16(std::uint16_t v) {
    bytes.push_back(static_cast<std::uint8_t>(big ? v >> 8 : v));
    bytes.push_back(static_cast<std::uint8_t>(big ? v : v >> 8));
  }
  void header(std::uint32_t magic, std::uint32_t link = 1) {
    u32(magic);
    u16(2);
    u16(4);
    u32(0);
    u32(0);
    u32(65535);
    u32(link);
  }
  void record(std::uint32_t sec, std::uint32_t frac, std::uint32_t incl, std::uint32_t orig) {
    u32(sec);
    u32(frac);
    u32(incl);
    u32(orig);
    bytes.resize(bytes.size() + incl, 0xab);
  }
};

std::string error_of(const std::vector<std::uint8_t>& bytes) {
  auto r = FileReader::from_memory(bytes, "f.pcap");
  if (!r) return r.error().message();
  while (true) {
    auto rec = r->next();
    if (!rec) return rec.error().message();
    if (!*rec) return "";
  }
}

TEST(FileReader, BothMagicsBothByteOrders) {
  for (bool big : {false, true}) {
    for (bool nano : {false, true}) {
      Builder b{big, {}};
      b.header(nano ? 0xa1b23c4d : 0xa1b2c3d4, 113);
      b.record(10, 500, 3, 60);
      b.record(11, 0, 0, 0);
      auto r = FileReader::from_memory(b.bytes);
      ASSERT_TRUE(r) << r.error().message();
      EXPECT_EQ(r->header().nanosecond, nano);
      EXPECT_EQ(r->header().link, LinkType::linux_sll);
      auto rec = r->next();
      ASSERT_TRUE(rec && *rec);
      EXPECT_EQ((*rec)->time_ns, 10'000'000'000 + (nano ? 500 : 500'000));
      EXPECT_EQ((*rec)->data.size(), 3u);
      EXPECT_EQ((*rec)->orig_len, 60u);
      EXPECT_EQ((*rec)->number, 1u);
      rec = r->next();
      ASSERT_TRUE(rec && *rec);
      EXPECT_EQ((*rec)->number, 2u);
      rec = r->next();
      ASSERT_TRUE(rec);
      EXPECT_FALSE(*rec);
    }
  }
}

TEST(FileReader, BadFilesNameTheProblemInOneLine) {
  EXPECT_EQ(error_of({}), "f.pcap: empty file, not a pcap or pcapng capture");
  EXPECT_EQ(error_of({'h', 'e', 'l', 'l', 'o', '\n'}), "f.pcap: not a pcap or pcapng capture (magic 0x68656c6c)");
  EXPECT_EQ(error_of({0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0}),
            "f.pcap: record 1 (offset 0): truncated: section header has 8 of 12 bytes");
  Builder b;
  b.header(0xa1b2c3d4);
  auto short_header = b.bytes;
  short_header.resize(10);
  EXPECT_EQ(error_of(short_header), "f.pcap: truncated: file header has 10 of 24 bytes");

  Builder link;
  link.header(0xa1b2c3d4, 105);
  EXPECT_NE(error_of(link.bytes).find("f.pcap: file header: unsupported link type 105"), std::string::npos);

  Builder version;
  version.u32(0xa1b2c3d4);
  version.u16(3);
  version.u16(0);
  version.bytes.resize(24);
  EXPECT_EQ(error_of(version.bytes), "f.pcap: file header: unsupported version 3.0 (expected 2.x)");

  b.record(1, 0, 10, 10);
  auto truncated_data = b.bytes;
  truncated_data.resize(truncated_data.size() - 4);
  EXPECT_EQ(error_of(truncated_data),
            "f.pcap: record 1 (offset 24): truncated: incl_len is 10 but the file ends after 6 bytes");
  auto truncated_header = b.bytes;
  truncated_header.resize(truncated_header.size() + 7, 0);
  EXPECT_EQ(error_of(truncated_header),
            "f.pcap: record 2 (offset 50): truncated: record header has 7 of 16 bytes");
  Builder huge;
  huge.header(0xa1b2c3d4);
  huge.u32(0);
  huge.u32(0);
  huge.u32(300000);
  huge.u32(300000);
  EXPECT_EQ(error_of(huge.bytes),
            "f.pcap: record 1 (offset 24): incl_len 300000 exceeds the maximum 262144 (corrupt "
            "record header?)");
  EXPECT_EQ(error_of(b.bytes), "");
}

TEST(FileReader, FromDiskMatchesFromMemoryAndErrorsStick) {
  Conversation c;
  const auto path = testing::write_capture("disk.pcap", {c.syn(1), c.syn_ack(2), c.data(3, 100)});
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  auto disk = FileReader::open(path);
  auto mem = FileReader::from_memory(bytes);
  ASSERT_TRUE(disk && mem);
  for (int i = 0; i < 4; ++i) {
    auto a = disk->next();
    auto m = mem->next();
    ASSERT_TRUE(a && m);
    ASSERT_EQ(a->has_value(), m->has_value());
    if (!*a) break;
    EXPECT_TRUE(std::ranges::equal((*a)->data, (*m)->data));
    EXPECT_EQ((*a)->time_ns, (*m)->time_ns);
  }
  bytes.resize(bytes.size() - 1);
  auto cut = FileReader::from_memory(bytes, "cut");
  ASSERT_TRUE(cut);
  int errors = 0;
  for (int i = 0; i < 6; ++i) errors += cut->next() ? 0 : 1;
  EXPECT_EQ(errors, 4);  // the third record fails, and so does every later call
  auto missing = FileReader::open("/nonexistent/file.pcap");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "/nonexistent/file.pcap: cannot open: No such file or directory");
  auto dir = FileReader::open("/tmp");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "/tmp: is a directory, not a pcap file");
}

}  // namespace
}  // namespace ackstall::pcap
