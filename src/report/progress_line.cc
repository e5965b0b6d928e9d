#include "ackstall/report/progress_line.h"

#include <unistd.h>

namespace ackstall::report {

ProgressLine::ProgressLine(bool enabled, std::FILE* out, Clock::duration after, Clock::duration every)
    : enabled_(enabled && (out != nullptr || ::isatty(STDERR_FILENO) == 1)),
      out_(out ? out : stderr),
      start_(Clock::now()),
      after_(after),
      every_(every) {}

void ProgressLine::update(const std::string& text, Clock::time_point now) {
  if (!enabled_ || now - start_ < after_ || (shown_ && now - last_ < every_)) return;
  std::fprintf(out_, "\r%s\033[K", text.c_str());
  std::fflush(out_);
  last_ = now;
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
}

}  // namespace ackstall::report
