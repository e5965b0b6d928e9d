// The project's own scripts, docs and examples write no old key name (FieldInfo::replaced_by,
// src/scenario/fields.cc build_aliases()): a --set KEY=VALUE, a sweep axis KEY=A..B, a
// "KEY=" + value built in a script, or a TOML key (bare under its [table], or dotted) that
// find_field knows as an old name fails here, with file:line. Prose may still name an old key
// (the aliases, history marked as such); verbatim history excluded by name below.
#include "ackstall/scenario/fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ackstall::scenario {
namespace {

namespace fs = std::filesystem;

// Subsections another hand keeps verbatim: from the heading line to the next heading of
// level 2 or 3.
struct Excluded {
  std::string_view file;     // relative to the root, '/'-separated
  std::string_view heading;  // the start of its heading line
};
constexpr Excluded kExcluded[] = {
    {"docs/VALIDATION.md", "### The lab examples as they stand"},
};

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

bool is_old_key(std::string_view path) {
  const FieldInfo* f = find_field(path);
  return f != nullptr && !f->replaced_by.empty();
}

// The old keys LINE writes: "KEY=" anywhere (not "=="), or "KEY =" at the line's start, KEY
// then taken under TABLE (the last [table] header) unless dotted from the root.
std::vector<std::string> old_keys_in_line(std::string_view line, const std::string& table) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    if (!key_char(line[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < line.size() && key_char(line[i])) ++i;
    const std::string_view token = line.substr(start, i - start);
    std::size_t j = i;
    const bool at_start = line.find_first_not_of(" \t") == start;
    if (at_start)
      while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    const bool assigns = j < line.size() && line[j] == '=' && (j + 1 == line.size() || line[j + 1] != '=');
    if (!assigns || (j > i && !at_start)) continue;
    if (is_old_key(token))
      out.emplace_back(token);
    else if (at_start && !table.empty() && is_old_key(table + "." + std::string(token)))
      out.push_back(table + "." + std::string(token));
  }
  return out;
}

// "bench/x.sh:12: app.receiver.read_latency" for every old key written under ROOT's bench/,
// docs/ and examples/.
std::vector<std::string> old_key_uses(const fs::path& root) {
  std::vector<std::string> hits;
  for (const char* dir : {"bench", "docs", "examples"}) {
    if (!fs::is_directory(root / dir)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && e.path().string().find("__pycache__") == std::string::npos)
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      std::stringstream buf;
      buf << in.rdbuf();
      const std::string text = buf.str();
      if (text.find('\0') != std::string::npos) continue;  // binary
      const std::string rel = fs::relative(file, root).generic_string();
      std::string_view skip;  // the excluded subsection's heading, while inside it
      std::string table;
      std::istringstream lines(text);
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n) {
        if (!skip.empty() && (line.starts_with("## ") || line.starts_with("### "))) skip = {};
        for (const Excluded& x : kExcluded)
          if (rel == x.file && line.starts_with(x.heading)) skip = x.heading;
        if (!skip.empty()) continue;
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] == '[') {  // a TOML table header
          const auto close = line.find(']', first);
          const std::string name = close == std::string::npos ? "" : line.substr(first + 1, close - first - 1);
          if (!name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") == std::string::npos)
            table = name;
        }
        for (const std::string& key : old_keys_in_line(line, table))
          hits.push_back(rel + ":" + std::to_string(n) + ": " + key);
      }
    }
  }
  return hits;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

TEST(OldKeyUse, ProjectScriptsDocsAndExamplesWriteOnlyTheNewKeys) {
  // ACKSTALL_OLD_KEY_ROOT: another tree to check (e.g. `git archive` of an older commit).
  const char* other = std::getenv("ACKSTALL_OLD_KEY_ROOT");
  const auto hits = old_key_uses(other != nullptr && *other != '\0' ? other : ACKSTALL_SOURCE_DIR);
  EXPECT_TRUE(hits.empty()) << "old key names written (use the key they name in the warning):\n"
                            << joined(hits);
}

class OldKeyUsePlanted : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ackstall-old-keys-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST_F(OldKeyUsePlanted, FindsEveryFormOfWritingAnOldKey) {
  write("bench/run.sh",
        "ackstall sim x.toml --set app.receiver.read_late_ppm=120 \\\n"
        "  --set \"link.shaper_wakeup_trace=$(cat t)\" --sweep app.transmitter.wakeup_latency=0us..1ms:50us\n"
        "ackstall sim x.toml --set app.receiver.read_wakeup=\"15us + exp(30us)\"\n");
  write("bench/model.py",
        "sets = [\"--set\", f\"app.receiver.read_jitter={mean:.1f}us\"]\n"
        "q = [\"--set\", \"link.shaper_wakeup_quantiles=\" + qs]\n"
        "out[\"read_jitter_us\"] = 3\n"
        "read_late_writes = 0\n"
        "if x.read_latency == 3: pass\n");
  write("examples/lab/x.toml",
        "[app.receiver]\n"
        "read_latency = \"0us\"\n"
        "  read_quantiles=\"1us,2us\"\n"
        "read_wakeup = \"none\"\n"
        "[link]\n"
        "burst = 3100\n"
        "app.transmitter.wakeup_jitter = \"5us\"\n");
  write("examples/maps/m.toml", "[sweep]\naxes = [\"app.transmitter.wakeup_latency=0us..500us:50us\"]\n");
  write("docs/GUIDE.md",
        "The old names (`read_latency`, `read_late_*`) still load; `read_late_ppm` (now a term of\n"
        "`read_wakeup`). With app.receiver.read_quantiles = each size's delays (verbatim, then).\n"
        "    ackstall sim a.toml --set app.receiver.read_late_quantiles=1us,2us\n");
  write("docs/VALIDATION.md",
        "## 4. x\n"
        "--set app.receiver.read_latency=1us\n"
        "### The lab examples as they stand (2026-12-06)\n"
        "--set app.receiver.read_jitter=1us\n"
        "read_latency = \"1us\"\n"
        "### Next\n"
        "--set link.shaper_wakeup_quantiles=1us,2us\n");
  std::string png = "\x89PNG";
  png += '\0';
  write("docs/img.png", png + "--set app.receiver.read_latency=1us\n");  // binary: not read
  EXPECT_EQ(joined(old_key_uses(root_)),
            "bench/model.py:1: app.receiver.read_jitter\n"
            "bench/model.py:2: link.shaper_wakeup_quantiles\n"
            "bench/run.sh:1: app.receiver.read_late_ppm\n"
            "bench/run.sh:2: link.shaper_wakeup_trace\n"
            "bench/run.sh:2: app.transmitter.wakeup_latency\n"
            "docs/GUIDE.md:3: app.receiver.read_late_quantiles\n"
            "docs/VALIDATION.md:2: app.receiver.read_latency\n"
            "docs/VALIDATION.md:7: link.shaper_wakeup_quantiles\n"
            "examples/lab/x.toml:2: app.receiver.read_latency\n"
            "examples/lab/x.toml:3: app.receiver.read_quantiles\n"
            "examples/lab/x.toml:7: app.transmitter.wakeup_jitter\n"
            "examples/maps/m.toml:2: app.transmitter.wakeup_latency\n");
}

}  // namespace
}  // namespace ackstall::scenario
