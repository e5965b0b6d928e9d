// Test helpers: write packets to a temporary capture; read a capture back into TcpPackets.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <string>
#include <vector>

#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"
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

}  // namespace ackstall::pcap::testing
