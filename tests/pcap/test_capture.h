// Test helpers: write packets to a temporary capture; read a capture back into TcpPackets.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/stall_scanner.h"
#include "ackstall/pcap/writer.h"

namespace ackstall::pcap::testing {

// A directory of the running test's own, created on first use (mkdtemp: unique even when ctest
// runs the same binary in several processes at once) and removed when the test ends.
class TestTempDir : public ::testing::EmptyTestEventListener {
 public:
  static const std::filesystem::path& get() {
    static TestTempDir* self = [] {
      auto* l = new TestTempDir;
      ::testing::UnitTest::GetInstance()->listeners().Append(l);  // gtest owns it
      return l;
    }();
    if (self->dir_.empty()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "ackstall_pcap_test.XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << tmpl;
      self->dir_ = tmpl;
    }
    return self->dir_;
  }

 private:
  void OnTestEnd(const ::testing::TestInfo&) override {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
  std::filesystem::path dir_;
};

inline std::filesystem::path temp_path(const std::string& name) { return TestTempDir::get() / name; }

inline std::filesystem::path write_capture(const std::string& name, const std::vector<TcpPacket>& packets,
                                           std::uint32_t snaplen = 128) {
  const auto path = temp_path(name);
  auto w = Writer::create(path, {snaplen});
  EXPECT_TRUE(w) << w.error().message();
  for (const auto& p : packets) {
    auto ok = w->write(p);
    EXPECT_TRUE(ok) << ok.error().message();
  }
  EXPECT_TRUE(w->flush());
  return path;
}

inline std::vector<TcpPacket> read_capture(const std::filesystem::path& path) {
  std::vector<TcpPacket> out;
  auto r = FileReader::open(path);
  EXPECT_TRUE(r) << r.error().message();
  if (!r) return out;
  while (true) {
    auto rec = r->next();
    EXPECT_TRUE(rec) << rec.error().message();
    if (!rec || !*rec) break;
    auto f = decode_frame(r->header().link, (*rec)->data, (*rec)->orig_len, (*rec)->time_ns);
    EXPECT_TRUE(f) << f.error().reason;
    if (f) out.push_back(f->packet);
  }
  return out;
}

// Stop and wait on a delayed ACK over a LAN (client port 40000 sends): SENDS writes of 5 full
// segments, every second one ACKed at once, the lone fifth's ACK held HOLD_NS; the next write
// 50 us after it; a FIN at the end when `fin`.
inline std::vector<TcpPacket> stop_and_wait_on_held_ack(int sends, std::int64_t hold_ns, bool fin) {
  constexpr std::int64_t kUs = 1'000;
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int s = 0; s < sends; ++s) {
    for (int i = 0; i < 5; ++i) {
      v.push_back(c.data(t, 1448, i == 4));
      if (i % 2 == 1) v.push_back(c.ack(t + 20 * kUs, c.bytes_sent()));
      t += 123 * kUs;
    }
    t += hold_ns;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
  }
  if (fin) v.push_back(c.fin(t));
  return v;
}

// WRITES writes of 3 full segments appended to V from T on: the first two ACKed at once, the lone
// third's ACK held HOLD_NS (a receiver's delayed ACK); the next write 50 us after that ACK.
inline void odd_writes_on_held_ack(Conversation& c, std::vector<TcpPacket>& v, std::int64_t& t, int writes,
                                   std::int64_t hold_ns) {
  constexpr std::int64_t kUs = 1'000;
  for (int w = 0; w < writes; ++w) {
    for (int i = 0; i < 3; ++i) {
      v.push_back(c.data(t, 1448, i == 2));
      if (i == 1) v.push_back(c.ack(t + 20 * kUs, c.bytes_sent()));
      t += 123 * kUs;
    }
    t += hold_ns;
    v.push_back(c.ack(t, c.bytes_sent()));
    t += 50 * kUs;
  }
}

// REQUESTS request/response turns over a LAN: the client (port 40000) writes each request in two
// pieces (200 and 300 bytes); Nagle holds the second until the first is ACKed (RFC 896), and the
// server, with half a request, holds that ACK for its delayed-ACK timer (40 ms). The server
// answers 1 ms after the second piece; the client ACKs at once and asks again NEXT_REQUEST later.
inline std::vector<TcpPacket> nagle_split_requests(int requests, std::int64_t next_request = 5'000'000) {
  constexpr std::int64_t kUs = 1'000, kMs = 1'000'000;
  Conversation c;
  std::vector<TcpPacket> v = {c.syn(0), c.syn_ack(100 * kUs), c.handshake_ack(200 * kUs)};
  std::int64_t t = 300 * kUs;
  for (int r = 0; r < requests; ++r) {
    v.push_back(c.data(t, 200, true));
    t += 40 * kMs;
    v.push_back(c.ack(t, c.bytes_sent()));  // the held ACK of the first piece
    t += 50 * kUs;
    v.push_back(c.data(t, 300, true));  // Nagle's held second piece
    t += 1 * kMs;
    v.push_back(c.reply(t, 1000));
    t += 100 * kUs;
    v.push_back(c.client_ack(t));
    t += next_request;
  }
  return v;
}

// A copy of the nanosecond pcap at `path` (as write_capture makes it, host byte order) with every
// record twice, the copy `offset_ns` later and its bytes unchanged (same IP ID and TCP timestamp):
// what a mirrored port or a capture on two interfaces records.
inline std::filesystem::path duplicate_every_record(const std::filesystem::path& path, const std::string& name,
                                                    std::uint32_t offset_ns) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<char> out(bytes.begin(), bytes.begin() + 24);
  for (std::size_t off = 24; off + 16 <= bytes.size();) {
    std::uint32_t hdr[4];
    std::memcpy(hdr, bytes.data() + off, 16);
    const std::size_t len = 16 + hdr[2];
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off),
               bytes.begin() + static_cast<std::ptrdiff_t>(off + len));
    hdr[1] += offset_ns;  // the copy: the same frame a little later
    if (hdr[1] >= 1'000'000'000u) {
      hdr[1] -= 1'000'000'000u;
      ++hdr[0];
    }
    const auto* h = reinterpret_cast<const char*>(hdr);
    out.insert(out.end(), h, h + 16);
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off + 16),
               bytes.begin() + static_cast<std::ptrdiff_t>(off + len));
    off += len;
  }
  const auto dst = temp_path(name);
  std::ofstream(dst, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
  return dst;
}

// The records of a capture written by write_capture (nanosecond pcap, Ethernet): header, frames.
struct CaptureRecords {
  std::vector<char> header;
  struct Record {
    std::int64_t time_ns;
    std::vector<char> frame;  // as captured (the snaplen's bytes)
    std::uint32_t orig_len;   // on the wire
  };
  std::vector<Record> records;
};

inline CaptureRecords read_records(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CaptureRecords c{{bytes.begin(), bytes.begin() + 24}, {}};
  for (std::size_t off = 24; off + 16 <= bytes.size();) {
    std::uint32_t hdr[4];
    std::memcpy(hdr, bytes.data() + off, 16);
    const auto* f = bytes.data() + off + 16;
    c.records.push_back({std::int64_t{hdr[0]} * 1'000'000'000 + hdr[1], {f, f + hdr[2]}, hdr[3]});
    off += 16 + hdr[2];
  }
  return c;
}

// The records written in time order (a stable sort: equal times keep their order).
inline std::filesystem::path write_records(CaptureRecords c, const std::string& name) {
  std::stable_sort(c.records.begin(), c.records.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  std::vector<char> out = c.header;
  for (const auto& r : c.records) {
    const std::uint32_t hdr[4] = {static_cast<std::uint32_t>(r.time_ns / 1'000'000'000),
                                  static_cast<std::uint32_t>(r.time_ns % 1'000'000'000),
                                  static_cast<std::uint32_t>(r.frame.size()), r.orig_len};
    const auto* h = reinterpret_cast<const char*>(hdr);
    out.insert(out.end(), h, h + 16);
    out.insert(out.end(), r.frame.begin(), r.frame.end());
  }
  const auto dst = temp_path(name);
  std::ofstream(dst, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
  return dst;
}

// The IPv4 header checksum (RFC 791 §3.1) of an Ethernet frame's IPv4 header, refilled.
inline void refill_ipv4_checksum(std::vector<char>& frame) {
  auto* ip = reinterpret_cast<unsigned char*>(frame.data() + 14);
  ip[10] = ip[11] = 0;
  std::uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += static_cast<std::uint32_t>(ip[i] << 8 | ip[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  ip[10] = static_cast<unsigned char>(~sum >> 8);
  ip[11] = static_cast<unsigned char>(~sum);
}

// Every data frame of PATH from source port PORT captured again OFFSET_NS later as a router
// forwarded it: the same datagram (IP ID, TCP header and payload), the TTL one less (TTL_DROP:
// 0 for the same datagram sent again by the host, as a stack that reuses IP IDs would).
inline std::filesystem::path forward_data_frames(const std::filesystem::path& path, const std::string& name,
                                                 std::uint16_t port, std::int64_t offset_ns, int ttl_drop = 1) {
  CaptureRecords c = read_records(path);
  const std::size_t n = c.records.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& f = c.records[i].frame;
    const auto* b = reinterpret_cast<const unsigned char*>(f.data());
    const std::size_t tcp = 14 + 4 * (b[14] & 0x0f);
    const unsigned total = static_cast<unsigned>(b[16] << 8 | b[17]);
    const unsigned payload = total - 4 * (b[14] & 0x0f) - 4 * (b[tcp + 12] >> 4);
    if (static_cast<unsigned>(b[tcp] << 8 | b[tcp + 1]) != port || payload == 0) continue;
    CaptureRecords::Record copy{c.records[i].time_ns + offset_ns, f, c.records[i].orig_len};
    copy.frame[14 + 8] = static_cast<char>(static_cast<unsigned char>(copy.frame[14 + 8]) - ttl_drop);  // TTL
    refill_ipv4_checksum(copy.frame);
    c.records.push_back(std::move(copy));
  }
  return write_records(std::move(c), name);
}

// PACKETS scanned in memory (every TTL 64); the report of the direction whose sender is the
// client (port 40000), as Conversation makes them.
inline DirectionReport scan_client_direction(const std::vector<TcpPacket>& packets) {
  StallScanner s;
  std::uint64_t frame = 0;
  for (const auto& p : packets) s.add(p, {p.src.addr, p.src.port}, {p.dst.addr, p.dst.port}, ++frame, 64);
  for (const auto& f : s.report()) {
    for (const auto& d : f.directions) {
      if (d.sender.port == 40000) return d;
    }
  }
  ADD_FAILURE() << "no client direction";
  return {};
}

}  // namespace ackstall::pcap::testing
