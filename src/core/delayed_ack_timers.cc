#include "ackstall/core/delayed_ack_timers.h"

namespace ackstall::core {

std::vector<std::string> delayed_ack_timer_fits(std::int64_t timer_ns) {
  struct Fit {
    double ms;
    const char* who;
  };
  // docs/STACKS.md: §1 Windows TcpDelAckTicks 2 = 200 ms; §3 OpenBSD tcp_delack_ticks 200 ms,
  // FreeBSD tcp_delacktime 100 ms; §4 Linux TCP_ATO_MIN 40 ms (as measured on jiffies: §7).
  static constexpr Fit kFits[] = {
      {200, "Windows (TcpDelAckTicks 2 = 200 ms, STACKS §1)"},
      {200, "OpenBSD/NetBSD (tcp_delack_ticks 200 ms, STACKS §3)"},
      {100, "FreeBSD (net.inet.tcp.delacktime 100 ms, STACKS §3)"},
      {40, "Linux (TCP_ATO_MIN 40 ms, STACKS §4)"},
  };
  const double ms = static_cast<double>(timer_ns) / 1e6;
  std::vector<std::string> out;
  for (const Fit& f : kFits) {
    if (ms >= f.ms * 0.75 && ms <= f.ms * 1.25) out.emplace_back(f.who);
  }
  if (out.empty() && ms > 0 && ms < 200) {
    out.emplace_back("pre-2001 BSD (global 200 ms tcp_fasttimo tick: 0-200 ms, STACKS §3)");
  }
  return out;
}

}  // namespace ackstall::core
