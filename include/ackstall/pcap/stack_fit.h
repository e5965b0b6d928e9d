// ackstall/pcap/stack_fit.h — a delayed-ACK hold fits at most one stack's timer (issue 37).
//
// A report once said a 43.8 ms hold "fits Linux" and in the next line "fits Windows" (because the
// receiver's TTL came down from 128), though Windows' timer is 200 ms (TcpDelAckTicks 2,
// docs/STACKS.md §1). The rules: the initial TTL narrows the family (64: Linux, BSD, macOS; 128:
// Windows), and the hold must fit that family's timer within +-25 % (core/delayed_ack_timers.h)
// for the stack to be named by it; where the two disagree, the report says so and names neither.
// The timers a hold fits are those of the families the TTL leaves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ackstall/pcap/diagnosis.h"

namespace ackstall::pcap {

// Linux's delayed-ACK timer: TCP_ATO_MIN 40 ms (docs/STACKS.md §4).
inline constexpr double kLinuxTimerMs = 40;

// HOLD_MS fits a timer of TIMER_MS: within +-25 %, the tolerance of core::delayed_ack_timer_fits
// (so a stack named by its timer is always among the timers the hold fits).
bool hold_fits_timer(double hold_ms, double timer_ms);

// The receiver whose TTL says Windows, with hold HOLD_MS and evidence text EV.
StackGuess windows_timer_fit(double hold_ms, const std::string& ev);

// The stacks whose delayed-ACK timer fits HOLD_NS, those the receiver's TTL (0: unknown) rules out
// left out (200 ms: Windows with TTL 128, OpenBSD/NetBSD with 64) unless none would be left.
std::vector<std::string> timer_fits_for(std::int64_t hold_ns, std::uint8_t receiver_ttl);

}  // namespace ackstall::pcap
