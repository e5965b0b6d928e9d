#include "ackstall/sim/receive_window.h"

#include <algorithm>

namespace ackstall::sim {

namespace {
std::int64_t raw_window(ReceiveWindowKind kind, const WindowInput& in) noexcept {
  std::int64_t win = std::max<std::int64_t>(in.space, 0);
  switch (kind) {
    case ReceiveWindowKind::bsd:
      // OpenBSD tcp_output: receiver-side silly window avoidance.
      if (win < in.rcvbuf / 4 && win < in.maxseg) win = 0;
      break;
    case ReceiveWindowKind::linux:
      // __tcp_select_window: round down to a multiple of rcv_mss.
      if (in.maxseg > 0) win = (win / in.maxseg) * in.maxseg;
      break;
    case ReceiveWindowKind::ns3:
      break;
  }
  return std::min(win, in.max_win);
}
}  // namespace

std::int64_t advertised_window(ReceiveWindowKind kind, const WindowInput& in) noexcept {
  const std::int64_t win = raw_window(kind, in);
  // BSD: "if (win < (long)(tp->rcv_adv - tp->rcv_nxt)) win = ..." ; Linux never shrinks either
  // (tcp_select_window: "Never shrink the offered window"). ns-3 may shrink.
  if (kind != ReceiveWindowKind::ns3) return std::max(win, std::min(in.promised, in.max_win));
  return win;
}

bool window_update_due(ReceiveWindowKind kind, const WindowInput& in) noexcept {
  switch (kind) {
    case ReceiveWindowKind::bsd: {
      const std::int64_t win = raw_window(kind, in);
      if (win <= 0) return false;
      const std::int64_t adv = std::min(win, in.max_win) - in.promised;
      return adv >= 2 * in.maxseg || 2 * adv >= in.rcvbuf;
    }
    case ReceiveWindowKind::linux: {
      const std::int64_t now = in.promised;
      if (2 * now > in.rcvbuf) return false;
      const std::int64_t nw = raw_window(kind, in);
      return nw > 0 && nw >= 2 * now;
    }
    case ReceiveWindowKind::ns3:
      return false;
  }
  return false;
}

}  // namespace ackstall::sim
