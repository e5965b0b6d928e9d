// ackstall/core/delayed_ack_timers.h — which stacks a measured delayed-ACK timer fits.
//
// Shared by `scan` (the median timer seen in a capture) and `probe --ack-test` (the ACK delay a
// lone segment met): both say "fits", not "is" — a timer narrows the stack down, it does not name it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ackstall::core {

// Stacks whose delayed-ACK timer is within +-25 % of `timer_ns`, each with its docs/STACKS.md
// section; below 200 ms with no fit, the pre-2001 BSD tick (a wait anywhere in 0-200 ms).
std::vector<std::string> delayed_ack_timer_fits(std::int64_t timer_ns);

}  // namespace ackstall::core
