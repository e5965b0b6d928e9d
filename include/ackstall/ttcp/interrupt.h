// ackstall/ttcp/interrupt.h — Ctrl-C and SIGTERM for commands that report what they measured so
// far (ttcp through Config::interrupt; also scan and watch).
//
// While an InterruptFlag lives, SIGINT and SIGTERM set its flag (to the signal's number) instead
// of ending the process; the command looks at flag() and stops, prints its partial report and
// exits with exit_code() (128 + the signal: 130, 143, as a shell reports a killed process).
// A second signal at least kSameRequestNs after the first ends the process at once with that
// code (the partial report is not coming: the user insists); one sooner is the same request
// delivered twice (timeout(1) signals the child and its process group) and changes nothing. The previous handlers are restored on destruction. One at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace ackstall::ttcp {

class InterruptFlag {
 public:
  InterruptFlag();
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  ~InterruptFlag();

  const std::atomic<int>& flag() const noexcept;
  static int exit_code(int signal) noexcept { return 128 + signal; }
  static constexpr std::int64_t kSameRequestNs = 500'000'000;
};

// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal);

}  // namespace ackstall::ttcp
