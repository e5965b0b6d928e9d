// Interval reports (--interval) and stall counting: closes intervals as time passes. Internal to
// src/ttcp.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "ackstall/core/units.h"
#include "ackstall/ttcp/result.h"

namespace ackstall::ttcp::detail {

using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double>(t - t0).count();
}

// The signal that interrupted the transfer, 0 while none has.
inline int interrupted(const std::atomic<int>* flag) noexcept {
  return flag ? flag->load(std::memory_order_relaxed) : 0;
}

struct IntervalClock {
  IntervalClock(double every_s, Clock::time_point start, const std::function<void(const Interval&)>* report,
                core::StallThreshold stall)
      : every(every_s), t0(start), on_close(report), stall_s(std::chrono::duration<double>(stall).count()) {}
  double every = 0;
  Clock::time_point t0;
  const std::function<void(const Interval&)>* on_close = nullptr;
  double stall_s = 0;  // the threshold in s, as calls are timed
  double last_end = 0;
  std::uint64_t last_bytes = 0;
  std::uint64_t stalls = 0, last_stalls = 0;
  double longest_s = 0;
  std::vector<Interval> done;

  // One send or read, from `began` to `now`; `bytes` moved in all so far.
  void call(Clock::time_point began, Clock::time_point now, std::uint64_t bytes) {
    const double took = since(began, now);
    if (took > longest_s) longest_s = took;
    if (took > stall_s) ++stalls;
    tick(now, bytes);
  }
  void tick(Clock::time_point now, std::uint64_t bytes) {
    if (every <= 0) return;
    const double t = since(t0, now);
    if (t - last_end < every) return;
    close(t, bytes);
  }
  // The last, partial interval, reported like the others.
  void finish(double t, std::uint64_t bytes) {
    if (every > 0 && t > last_end && (bytes > last_bytes || stalls > last_stalls)) close(t, bytes);
  }
  // Copies the counters into `res`.
  void fill(TransferResult& res) {
    res.intervals = std::move(done);
    res.stalls = stalls;
    res.longest_call_ms = longest_s * 1000.0;
  }

 private:
  void close(double t, std::uint64_t bytes) {
    done.push_back({last_end, t, bytes - last_bytes, stalls - last_stalls});
    last_end = t;
    last_bytes = bytes;
    last_stalls = stalls;
    if (on_close && *on_close) (*on_close)(done.back());
  }
};

}  // namespace ackstall::ttcp::detail
