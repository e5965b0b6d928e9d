// ackstall/live/trace_instance.h — a tracefs instance of `watch --events`' own
// (Documentation/trace/ftrace.rst "Instances"): never the global buffer, so other tracing users
// are untouched. Named ackstall-watch-<pid>; removed (rmdir, which also disables its events) when
// the object goes, on exit or Ctrl-C; a SIGKILLed run's instance (its pid gone) is removed by the
// next run. Needs root (CAP_SYS_ADMIN): tracefs is mounted if it is not.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/live/trace_events.h"

namespace ackstall::live {

inline constexpr std::string_view kInstancePrefix = "ackstall-watch-";

// The tracefs mount (/sys/kernel/tracing, else /sys/kernel/debug/tracing), mounted there if
// absent; an error saying what is missing (no root, no tracefs in this kernel). With AT (a mount
// the user named), that directory only: an error when it is no tracefs (no instances/ in it).
core::Result<std::string> tracefs_root(const std::string& at = {});

// Instances named kInstancePrefix<pid> whose process is gone: removed; returns their names.
std::vector<std::string> remove_stale_instances(const std::string& root);

struct TraceCounts {
  std::uint64_t records = 0, overrun = 0, dropped = 0, missed_pages = 0;  // overrun/dropped: per_cpu stats
};

class TraceInstance {
 public:
  // The instance with the events this kernel has, filtered in the kernel to PORTS (either end;
  // empty: every TCP socket). NOTES gets one line per absent event or field, and per stale
  // instance removed.
  // TRACEFS: the mount to use (empty: tracefs_root()'s search).
  static core::Result<TraceInstance> create(const std::vector<std::uint16_t>& ports, std::vector<std::string>& notes,
                                            const std::string& tracefs = {}, std::size_t buffer_kb = 4096);
  TraceInstance(TraceInstance&& other) noexcept;
  TraceInstance& operator=(TraceInstance&&) = delete;
  TraceInstance(const TraceInstance&) = delete;
  ~TraceInstance();

  // Reads every per-CPU buffer until it is empty; the decoded events, in time order. The buffers
  // are read one after the other, so an event of a CPU read first may be older than one of a CPU
  // read later and still come only in the next drain: the events from kHoldBackNs before this
  // drain began on are held for the next one (the trace clock is CLOCK_MONOTONIC), so that the
  // events come out in time order across drains too.
  core::Result<std::vector<TraceEvent>> drain();
  static constexpr std::int64_t kHoldBackNs = 5'000'000;
  // The last drain gave out every event before this time (the trace clock, ns); later ones are
  // held. What is timed up to "now" from the events is timed up to here.
  std::int64_t released_until_ns() const noexcept { return released_until_ns_; }
  TraceCounts counts() const;
  const std::string& path() const noexcept { return path_; }

 private:
  TraceInstance() = default;
  std::string path_;
  EventSchema schema_;
  PageLayout layout_;
  std::size_t page_size_ = 4096;
  std::vector<int> pipes_;
  std::vector<TraceEvent> held_;  // read, not yet given out (drain)
  std::uint64_t records_ = 0, missed_pages_ = 0;
  std::int64_t released_until_ns_ = 0;
};

}  // namespace ackstall::live
