// The progress line: silent for work that ends within `after`, then one line rewritten in
// place at most every `every`, erased by clear().
#include "ackstall/report/progress_line.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ackstall::report {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s.push_back(static_cast<char>(c));
  return s;
}

TEST(ProgressLine, ShowsNothingBeforeItsDelayThenRewritesInPlace) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  using namespace std::chrono_literals;
  const auto t0 = ProgressLine::Clock::now();
  {
    ProgressLine line(true, f, 1s, 200ms);
    ASSERT_TRUE(line.enabled());
    line.update("early", t0 + 500ms);
    line.update("a", t0 + 1100ms);
    line.update("too soon", t0 + 1200ms);
    line.update("b", t0 + 1400ms);
    line.clear();
    line.clear();  // once only
  }
  EXPECT_EQ(contents(f), "\ra\033[K\rb\033[K\r\033[K");
  std::fclose(f);
}

TEST(ProgressLine, DisabledWritesNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine line(false, f, std::chrono::seconds(0));
    EXPECT_FALSE(line.enabled());
    line.update("x", ProgressLine::Clock::now() + std::chrono::hours(1));
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

}  // namespace
}  // namespace ackstall::report
