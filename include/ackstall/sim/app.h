// ackstall/sim/app.h — what a sans-IO application model (app_ttcp.h, app_scp.h) hands back.
//
// An application model never sees the engine or the socket: the simulation tells it what
// happened (it may run, a send or read returned, the socket became writable/readable) and the
// model answers with a request (send / read / close), or with when it wants to run next and the
// stalls that just ended. The simulation performs the request on the TCP endpoint, reports the
// result back, schedules the next run and records the stalls, in that order.
#pragma once

#include "ackstall/sim/time.h"
#include "ackstall/sim/trace.h"

#include <array>
#include <cstdint>

namespace ackstall::sim {

// "Run me again at `at`" (never: wait for a notification), after recording `stalls` in order.
struct AppWake {
  Nanos at = Nanos::never();
  std::array<StallMarker, 2> stalls{};
  std::uint8_t stall_count = 0;

  void add_stall(StallKind kind, Nanos begin, Nanos end) noexcept {
    stalls[stall_count++] = {kind, begin, end};
  }
  bool runs() const noexcept { return !at.is_never(); }
};

}  // namespace ackstall::sim
