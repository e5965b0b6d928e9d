#include "ackstall/pcap/writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/payload_pattern.h"
#include "test_capture.h"

namespace ackstall::pcap {
namespace {

// An independent checksum: plain RFC 1071 over a fully materialised buffer.
std::uint16_t naive_sum(const std::vector<std::uint8_t>& b) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < b.size(); i += 2) {
    sum += static_cast<std::uint32_t>(b[i] << 8 | (i + 1 < b.size() ? b[i + 1] : 0));
    sum = (sum & 0xffff) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(sum);
}

std::vector<TcpPacket> sample_packets() {
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(1'000), c.syn_ack(2'000), c.handshake_ack(3'000)};
  v.push_back(c.data(4'000, 1448));
  v.push_back(c.data(5'000, 1448, true));
  v.push_back(c.ack(6'500, 2896));
  v.push_back(c.data(1'700'000'000'123'456'789, 1, true));  // odd length, large timestamp
  v.push_back(c.data(1'700'000'000'223'456'789, 0));
  v.push_back(c.fin(1'700'000'000'323'456'789));
  TcpPacket wrap = c.data(1'700'000'001'000'000'000, 3000);
  wrap.seq = 0xfffffa00u;  // payload crosses the 2^32 sequence wrap
  v.push_back(wrap);
  return v;
}

TEST(Writer, RoundTripsThroughTheReader) {
  const auto packets = sample_packets();
  const auto path = testing::write_capture("rt.pcap", packets);
  EXPECT_EQ(testing::read_capture(path), packets);
}

TEST(Writer, ChecksumsVerifyIndependentlyOverTheFullFrame) {
  const auto packets = sample_packets();
  const auto path = testing::write_capture("full.pcap", packets, kMaxSnaplen);
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GE(file.size(), 24u);
  std::size_t off = 24;
  for (const TcpPacket& p : packets) {
    std::uint32_t incl = 0, orig = 0;
    std::memcpy(&incl, &file[off + 8], 4);
    std::memcpy(&orig, &file[off + 12], 4);
    ASSERT_EQ(incl, orig);
    std::vector<std::uint8_t> frame(file.begin() + static_cast<std::ptrdiff_t>(off + 16),
                                    file.begin() + static_cast<std::ptrdiff_t>(off + 16 + incl));
    off += 16 + incl;
    const std::vector<std::uint8_t> ip(frame.begin() + 14, frame.begin() + 34);
    EXPECT_EQ(naive_sum(ip), 0xffff);
    const std::size_t tcp_len = frame.size() - 34;
    std::vector<std::uint8_t> pseudo(frame.begin() + 26, frame.begin() + 34);  // src, dst
    pseudo.insert(pseudo.end(), {0, 6, static_cast<std::uint8_t>(tcp_len >> 8),
                                 static_cast<std::uint8_t>(tcp_len)});
    pseudo.insert(pseudo.end(), frame.begin() + 34, frame.end());
    EXPECT_EQ(naive_sum(pseudo), 0xffff) << "seq " << p.seq;
    // Payload bytes are the pattern.
    const std::size_t hdr = 34 + (frame[46] >> 4) * 4u;
    ASSERT_EQ(frame.size() - hdr, p.payload_len);
    for (std::size_t i = 0; i < p.payload_len; ++i) {
      ASSERT_EQ(frame[hdr + i], payload_byte(p.seq + static_cast<std::uint32_t>(i)));
    }
  }
  EXPECT_EQ(off, file.size());
}

TEST(Writer, SnaplenTruncatesButKeepsOrigLen) {
  Conversation c;
  const auto path = testing::write_capture("snap.pcap", {c.data(0, 1448)}, 60);
  auto r = FileReader::open(path);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->header().nanosecond);
  EXPECT_EQ(r->header().snaplen, 60u);
  auto rec = r->next();
  ASSERT_TRUE(rec && *rec);
  EXPECT_EQ((*rec)->data.size(), 60u);
  EXPECT_EQ((*rec)->orig_len, 14u + 20 + 32 + 1448);
  auto f = decode_frame(r->header().link, (*rec)->data, (*rec)->orig_len, 0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->packet.payload_len, 1448u);
  EXPECT_TRUE(f->options_truncated);
}

TEST(Writer, BadInputIsAnErrorValue) {
  std::ostringstream out;
  EXPECT_FALSE(Writer::to_stream(out, {0}));
  EXPECT_FALSE(Writer::to_stream(out, {kMaxSnaplen + 1}));
  auto w = Writer::to_stream(out, {}, "mem");
  ASSERT_TRUE(w);
  TcpPacket p;
  p.time_ns = -1;
  auto e = w->write(p);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message(), "mem: packet 1: time_ns -1 outside the pcap range [0, 2^32 s)");
  p.time_ns = 0;
  p.payload_len = 70000;
  e = w->write(p);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("payload_len 70000 too large"), std::string::npos);
  EXPECT_FALSE(Writer::create("/nonexistent-dir/x.pcap"));
}

// A Writer moved out of (here: the Result that create() returned) may outlive the Writer that
// took its file; it must not touch the file then (it did: use after free, found by a sink whose
// Result was destroyed after it).
TEST(Writer, MovedFromWriterLetsGoOfTheFile) {
  const auto path = testing::temp_path("moved.pcap");
  auto created = Writer::create(path);
  ASSERT_TRUE(created);
  {
    Writer owner(std::move(*created));
    TcpPacket p;
    p.payload_len = 10;
    ASSERT_TRUE(owner.write(p));
    Writer again = std::move(owner);  // and move-assignment's source the same way
    owner = std::move(again);
    ASSERT_TRUE(owner.flush());
  }
  created = make_error("gone");  // destroys the moved-from Writer after the file closed
  auto r = FileReader::open(path);
  ASSERT_TRUE(r) << r.error().message();
  auto rec = r->next();
  ASSERT_TRUE(rec && *rec);
}

// The same without a sanitiser: a stream that counts flushes. Destroying the moved-from Writer
// after the owner must not flush the stream again (the old defaulted move kept the pointer).
TEST(Writer, MovedFromWriterDoesNotFlush) {
  struct CountingBuf : std::stringbuf {
    int syncs = 0;
    int sync() override {
      ++syncs;
      return std::stringbuf::sync();
    }
  } buf;
  std::ostream out(&buf);
  auto created = Writer::to_stream(out, {}, "counted");
  ASSERT_TRUE(created);
  {
    Writer owner(std::move(*created));
    ASSERT_TRUE(owner.flush());
  }
  const int after_owner = buf.syncs;
  created = make_error("gone");
  EXPECT_EQ(buf.syncs, after_owner);
}

TEST(Writer, MemoryIsConstant) {
  // A 64K-payload segment with a small snaplen writes only snaplen bytes per record.
  std::ostringstream out;
  auto w = Writer::to_stream(out);
  ASSERT_TRUE(w);
  Conversation c;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(w->write(c.data(i, 65000)));
  EXPECT_EQ(out.str().size(), 24u + 100 * (16 + 128));
}

}  // namespace
}  // namespace ackstall::pcap
