// Interval reports (--interval): closes intervals as time passes. Internal to src/ttcp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "ackstall/ttcp/result.h"

namespace ackstall::ttcp::detail {

using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double>(t - t0).count();
}

struct IntervalClock {
  IntervalClock(double every_s, Clock::time_point start, const std::function<void(const Interval&)>* report)
      : every(every_s), t0(start), on_close(report) {}
  double every = 0;
  Clock::time_point t0;
  const std::function<void(const Interval&)>* on_close = nullptr;
  double last_end = 0;
  std::uint64_t last_bytes = 0;
  std::vector<Interval> done;

  void tick(Clock::time_point now, std::uint64_t bytes) {
    if (every <= 0) return;
    const double t = since(t0, now);
    if (t - last_end < every) return;
    done.push_back({last_end, t, bytes - last_bytes});
    last_end = t;
    last_bytes = bytes;
    if (on_close && *on_close) (*on_close)(done.back());
  }
  // The last, partial interval (not reported as an event: the summary follows).
  void finish(double t, std::uint64_t bytes) {
    if (every > 0 && bytes > last_bytes && t > last_end) done.push_back({last_end, t, bytes - last_bytes});
  }
};

}  // namespace ackstall::ttcp::detail
