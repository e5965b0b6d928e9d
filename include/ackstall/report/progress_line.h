// A progress line on a terminal: one line on stderr, rewritten in place ("\r" and erase to the
// end of the line, ECMA-48 EL), shown only once the work has taken longer than `after` and only
// when stderr is a terminal (a pipe or a log file never sees it). clear() erases it, so the
// report that follows starts on a clean line.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace ackstall::report {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  // `out` null: stderr, shown only if it is a terminal. Tests pass a file and force it on.
  explicit ProgressLine(bool enabled, std::FILE* out = nullptr,
                        Clock::duration after = std::chrono::seconds(1),
                        Clock::duration every = std::chrono::milliseconds(200));
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { clear(); }

  bool enabled() const noexcept { return enabled_; }
  // Shows `text` (no newline) if enough time has passed since the start and the last update.
  void update(const std::string& text, Clock::time_point now = Clock::now());
  void clear();

 private:
  bool enabled_;
  std::FILE* out_;
  Clock::time_point start_, last_{};
  Clock::duration after_, every_;
  bool shown_ = false;
};

}  // namespace ackstall::report
