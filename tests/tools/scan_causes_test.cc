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
#include "temp_dir.h"

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


// The emitted scenario names what it infers weakly from each capture, by the cause that set the
// pace, and carries the receiver's window when the window set it.
TEST(ScanCauses, TheEmittedScenarioNamesItsWeakInferences) {
  const struct {
    const char* capture;
    const char* note;
  } cases[] = {
      {"receiver-window", "the receiver's window (18824 bytes offered) set the pace"},
      {"receiver-window", "the link rate comes from the spacing of full segments"},
      {"loss", "losses on the path"},
      {"app-limited", "the sending application set the pace"},
      {"reqresp-30ms", "request/response"},
      {"nagle-delack", "Nagle held"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.capture);
    TempDir dir;
    const auto out = (dir.path() / "s.toml").string();
    const auto r = run_ackstall({"scan", (corpus_dir() / (std::string(c.capture) + ".pcapng")).string(),
                                 "--emit-scenario", out});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("note: ") + c.note), std::string::npos) << r.out;
    std::ifstream in(out);
    std::ostringstream text;
    text << in.rdbuf();
    if (std::string(c.capture) == "receiver-window") {
      EXPECT_NE(text.str().find("rcvbuf = 18824"), std::string::npos) << text.str();
    } else {
      EXPECT_EQ(text.str().find("rcvbuf"), std::string::npos) << text.str();
    }
  }
}

}  // namespace
}  // namespace ackstall::tools
