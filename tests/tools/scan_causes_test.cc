// ackstall scan on the labelled cause corpus (tests/data/cause-captures/, recorded by
// bench/scan_cause_corpus.sh: one real Linux transfer in the namespace lab per known cause,
// captured at the receiver). Each capture gets the cause its manifest.json names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"

namespace ackstall::tools {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() { return fs::path(ACKSTALL_SOURCE_DIR) / "tests" / "data" / "cause-captures"; }

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

TEST(ScanCauses, EveryLabelledCaptureGetsItsCause) {
  const auto manifest = read_json(corpus_dir() / "manifest.json");
  ASSERT_GE(manifest.size(), 6u);
  for (const auto& [name, want] : manifest.items()) {
    SCOPED_TRACE(name);
    const auto r = run_ackstall({"scan", "--json", (corpus_dir() / (name + ".pcapng")).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    // The data direction: the one that carried the most.
    const nlohmann::json* d = nullptr;
    for (const auto& f : j["flows"]) {
      for (const auto& dir : f["directions"]) {
        if (d == nullptr || dir["bytes_sent"] > (*d)["bytes_sent"]) d = &dir;
      }
    }
    ASSERT_NE(d, nullptr);
    const auto& g = (*d)["diagnosis"];
    if (want.contains("dominant")) {
      EXPECT_EQ(g["dominant"], want["dominant"]) << g["mechanism"];
    }
    if (want.contains("problem")) {
      EXPECT_EQ(g["problem"], want["problem"]) << g["mechanism"];
    }
    if (want.contains("zero_window_acks")) {
      EXPECT_GT((*d)["zero_window_acks"].get<int>(), 0);
    }
    if (want.contains("fix_contains")) {
      // A fix for the stacks in the capture (a Linux receiver: TCP_QUICKACK).
      const auto needle = want["fix_contains"].get<std::string>();
      bool found = false;
      for (const auto& f : g["fixes"]) found = found || f.get<std::string>().find(needle) != std::string::npos;
      EXPECT_TRUE(found) << needle << " not in " << g["fixes"].dump();
    }
    if (want.contains("capture_warning")) {
      EXPECT_FALSE(g["capture_warnings"].empty());
    }
    if (want.value("problem", nlohmann::json()).is_null() && want.contains("problem")) {
      EXPECT_TRUE(g["healthy"].get<bool>()) << g["mechanism"];
    }
  }
}

}  // namespace
}  // namespace ackstall::tools
