// FileReader on pcapng built block by block: timestamp resolutions and offsets, the three packet
// block types, sections in either byte order, skipped blocks, and each structural error.
#include <gtest/gtest.h>

#include <filesystem>

#include <cstdint>
#include <string>
#include <vector>

#include "ackstall/pcap/file_reader.h"

namespace ackstall::pcap {
namespace {

// pcapng bytes by hand (draft-ietf-opsawg-pcapng §4), in either byte order.
struct Ng {
  bool big = false;
  std::vector<std::uint8_t> bytes;
  void u8(std::uint8_t v) { bytes.push_back(v); }
  void u16(std::uint16_t v) {
    u8(static_cast<std::uint8_t>(big ? v >> 8 : v));
    u8(static_cast<std::uint8_t>(big ? v : v >> 8));
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (big ? 24 - 8 * i : 8 * i)));
  }
  void pad() {
    while (bytes.size() % 4 != 0) u8(0);
  }
  // A block: type, length, body, length; `body` writes the body.
  template <class Body>
  void block(std::uint32_t type, Body&& body) {
    const std::size_t start = bytes.size();
    u32(type);
    u32(0);
    body();
    pad();
    const auto len = static_cast<std::uint32_t>(bytes.size() - start + 4);
    u32(len);
    Ng fix{big, {}};
    fix.u32(len);
    std::copy(fix.bytes.begin(), fix.bytes.end(), bytes.begin() + static_cast<std::ptrdiff_t>(start + 4));
  }
  void section() {
    block(0x0A0D0D0A, [&] {
      u32(0x1A2B3C4D);
      u16(1);
      u16(0);
      u32(0xffffffff);
      u32(0xffffffff);
    });
  }
  // tsresol < 0: no if_tsresol option (microseconds).
  void interface(std::uint16_t link = 1, int tsresol = -1, std::int64_t tsoffset = 0, std::uint32_t snaplen = 0) {
    block(1, [&] {
      u16(link);
      u16(0);
      u32(snaplen);
      if (tsresol >= 0) {
        u16(9);
        u16(1);
        u8(static_cast<std::uint8_t>(tsresol));
        pad();
      }
      if (tsoffset != 0) {
        u16(14);
        u16(8);
        const auto v = static_cast<std::uint64_t>(tsoffset);
        if (big) {
          u32(static_cast<std::uint32_t>(v >> 32));
          u32(static_cast<std::uint32_t>(v));
        } else {
          u32(static_cast<std::uint32_t>(v));
          u32(static_cast<std::uint32_t>(v >> 32));
        }
      }
      u16(0);
      u16(0);
    });
  }
  void data(std::size_t n, std::uint8_t fill) {
    for (std::size_t i = 0; i < n; ++i) u8(fill);
  }
  void epb(std::uint32_t iface, std::uint64_t ts, std::uint32_t caplen, std::uint32_t origlen, std::uint8_t fill = 0xab) {
    block(6, [&] {
      u32(iface);
      u32(static_cast<std::uint32_t>(ts >> 32));
      u32(static_cast<std::uint32_t>(ts));
      u32(caplen);
      u32(origlen);
      data(caplen, fill);
    });
  }
  void spb(std::uint32_t origlen, std::size_t stored, std::uint8_t fill = 0xcd) {
    block(3, [&] {
      u32(origlen);
      data(stored, fill);
    });
  }
  void obsolete_pb(std::uint16_t iface, std::uint64_t ts, std::uint32_t caplen) {
    block(2, [&] {
      u16(iface);
      u16(0);
      u32(static_cast<std::uint32_t>(ts >> 32));
      u32(static_cast<std::uint32_t>(ts));
      u32(caplen);
      u32(caplen);
      data(caplen, 0xef);
    });
  }
};

struct Out {
  std::vector<Record> records;
  std::vector<std::vector<std::uint8_t>> data;
  std::string error;
  bool truncated = false;
  LinkType link = LinkType::ethernet;
};

Out read(const std::vector<std::uint8_t>& bytes) {
  Out out;
  auto r = FileReader::from_memory(bytes, "n.pcapng");
  if (!r) {
    out.error = r.error().message();
    return out;
  }
  out.link = r->header().link;
  EXPECT_TRUE(r->header().pcapng);
  while (true) {
    auto rec = r->next();
    if (!rec) {
      out.error = rec.error().message();
      out.truncated = r->truncated();
      return out;
    }
    if (!*rec) return out;
    out.records.push_back(**rec);
    out.data.emplace_back((*rec)->data.begin(), (*rec)->data.end());
  }
}

TEST(FileReaderPcapng, TimestampResolutionsAndOffsets) {
  Ng g;
  g.section();
  g.interface(1);                     // microseconds (no if_tsresol)
  g.interface(1, 9);                  // nanoseconds
  g.interface(1, 0x80 | 10, 100);     // 2^-10 s, 100 s offset
  g.interface(1, 3);                  // milliseconds
  g.epb(0, 1'500'000, 60, 60);        // 1.5 s in us
  g.epb(1, 2'000'000'001, 60, 1514);  // 2.000000001 s
  g.epb(2, 512, 60, 60);              // 0.5 s + 100 s
  g.epb(3, 7, 60, 60);                // 7 ms
  const Out o = read(g.bytes);
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.records.size(), 4u);
  EXPECT_EQ(o.records[0].time_ns, 1'500'000'000);
  EXPECT_EQ(o.records[1].time_ns, 2'000'000'001);
  EXPECT_EQ(o.records[1].orig_len, 1514u);
  EXPECT_EQ(o.records[2].time_ns, 100'500'000'000);
  EXPECT_EQ(o.records[3].time_ns, 7'000'000);
  EXPECT_EQ(o.records[3].number, 4u);
}

TEST(FileReaderPcapng, SimpleAndObsoletePacketBlocksAndSkippedBlocks) {
  Ng g;
  g.section();
  g.interface(1, -1, 0, 40);  // snaplen 40
  g.block(5, [&] { g.data(20, 0); });  // Interface Statistics Block: not a packet
  g.spb(100, 100);                     // stored 100, snaplen keeps 40
  g.block(0x0BAD, [&] { g.data(8, 1); });  // unknown type: skipped
  g.obsolete_pb(0, 3'000'000, 30);
  const Out o = read(g.bytes);
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.records.size(), 2u);
  EXPECT_EQ(o.data[0].size(), 40u);
  EXPECT_EQ(o.records[0].orig_len, 100u);
  EXPECT_EQ(o.data[0][0], 0xcd);
  EXPECT_EQ(o.records[1].number, 2u);  // frame numbers count packets only
  EXPECT_EQ(o.records[1].time_ns, 3'000'000'000);
  EXPECT_EQ(o.data[1], std::vector<std::uint8_t>(30, 0xef));
}

TEST(FileReaderPcapng, SectionsInEitherByteOrder) {
  Ng g;
  g.section();
  g.interface(113);  // Linux SLL
  g.epb(0, 1, 20, 20, 0x11);
  Ng b{true, {}};
  b.section();
  b.interface(113, 9);
  b.epb(0, 5, 24, 24, 0x22);
  g.bytes.insert(g.bytes.end(), b.bytes.begin(), b.bytes.end());
  const Out o = read(g.bytes);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.link, LinkType::linux_sll);
  ASSERT_EQ(o.records.size(), 2u);
  EXPECT_EQ(o.records[1].time_ns, 5);
  EXPECT_EQ(o.data[1], std::vector<std::uint8_t>(24, 0x22));
}

TEST(FileReaderPcapng, StructuralErrorsNameTheRecordAndOffset) {
  {
    Ng g;
    g.section();
    g.epb(0, 1, 20, 20);
    EXPECT_EQ(read(g.bytes).error, "n.pcapng: record 1 (offset 28): a packet block before any interface description block");
  }
  {
    Ng g;
    g.section();
    g.interface(1);
    g.interface(113);
    EXPECT_EQ(read(g.bytes).error,
              "n.pcapng: record 1 (offset 52): interface 1 has link type 113 but the first has 1: one link type per capture");
  }
  {
    Ng g;
    g.section();
    g.interface(1);
    g.epb(0, 1, 20, 20);
    g.bytes[g.bytes.size() - 1] ^= 0x01;  // the trailing length (big end in little-endian: last byte)
    g.bytes[g.bytes.size() - 4] ^= 0x04;
    EXPECT_EQ(read(g.bytes).error.find("n.pcapng: record 1 (offset 52): block of type 6: trailing length "), 0u)
        << read(g.bytes).error;
  }
  {
    Ng g;
    g.section();
    g.interface(1);
    g.epb(0, 1, 20, 20);
    g.bytes[56] = 70;  // the EPB's length, 70: not a multiple of 4
    EXPECT_EQ(read(g.bytes).error,
              "n.pcapng: record 1 (offset 52): block of type 6 has a length of 70 (below 12 or not a multiple of 4)");
  }
  {
    Ng g;
    g.section();
    g.interface(147);  // a link type the scanner does not decode
    EXPECT_NE(read(g.bytes).error.find("interface 0: unsupported link type 147"), std::string::npos);
  }
}

TEST(FileReaderPcapng, CutInsideABlockIsTruncation) {
  Ng g;
  g.section();
  g.interface(1);
  g.epb(0, 1, 20, 20);
  g.epb(0, 2, 20, 20);
  g.bytes.resize(g.bytes.size() - 10);
  const Out o = read(g.bytes);
  EXPECT_EQ(o.records.size(), 1u);
  EXPECT_TRUE(o.truncated);
  EXPECT_EQ(o.error, "n.pcapng: record 2 (offset 104): truncated: block of type 6 has 42 of 52 bytes");
}

}  // namespace
}  // namespace ackstall::pcap

namespace ackstall::pcap {
namespace {

// Interface Statistics Blocks (pcapng §4.6): the latest one's isb_ifdrop + isb_osdrop (12 + 3 in
// the fuzz seed); none before it is read, none at all in a file without one.
TEST(FileReaderPcapng, CaptureDropsComeFromTheStatisticsBlocks) {
  const auto dir = std::filesystem::path(ACKSTALL_SOURCE_DIR) / "fuzz" / "corpus" / "file_reader";
  auto r = FileReader::open(dir / "isb-drops.pcapng");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->capture_drops().has_value());
  while (true) {
    auto rec = r->next();
    ASSERT_TRUE(rec) << rec.error().message();
    if (!*rec) break;
  }
  EXPECT_EQ(r->capture_drops(), 15u);
  auto plain = FileReader::open(dir / "pcapng-small");
  ASSERT_TRUE(plain);
  while (true) {
    auto rec = plain->next();
    if (!rec || !*rec) break;
  }
  EXPECT_FALSE(plain->capture_drops().has_value());
}

}  // namespace
}  // namespace ackstall::pcap
