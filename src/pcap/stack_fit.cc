#include "ackstall/pcap/stack_fit.h"

#include <fmt/format.h>

#include <algorithm>

#include "ackstall/core/delayed_ack_timers.h"

namespace ackstall::pcap {
namespace {
// Windows' delayed-ACK timer (TcpDelAckTicks 2 = 200 ms, docs/STACKS.md §1), +-25 % as
// core::delayed_ack_timer_fits.
constexpr double kWindowsTimerMs = 200;
constexpr double kFitTolerance = 0.25;
}  // namespace

bool hold_fits_timer(double hold_ms, double timer_ms) {
  return hold_ms >= timer_ms * (1 - kFitTolerance) && hold_ms <= timer_ms * (1 + kFitTolerance);
}

StackGuess windows_timer_fit(double hold_ms, const std::string& ev) {
  if (hold_fits_timer(hold_ms, kWindowsTimerMs)) {
    return {StackFamily::windows, ev + ": fits Windows"};
  }
  return {StackFamily::unknown,
          fmt::format("{}: the TTL says Windows, but a ~{:.0f} ms hold fits no Windows timer (200 ms, STACKS §1)", ev,
                      hold_ms)};
}

std::vector<std::string> timer_fits_for(std::int64_t hold_ns, std::uint8_t receiver_ttl) {
  std::vector<std::string> fits = core::delayed_ack_timer_fits(hold_ns);
  if (receiver_ttl == 0) return fits;
  // The initial TTL (RFC 1700 defaults, as p0f): 64 Linux, BSD, macOS; 128 Windows.
  const bool ttl_windows = receiver_ttl > 64 && receiver_ttl <= 128;
  std::vector<std::string> left = fits;
  std::erase_if(left, [&](const std::string& f) { return f.starts_with("Windows") != ttl_windows; });
  // A hold that fits only a family the TTL rules out still says which timer it is (the stack guess
  // says that the two disagree).
  return left.empty() ? fits : left;
}

}  // namespace ackstall::pcap
