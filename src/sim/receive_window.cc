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
      win = linux_select_window(in);
      break;
    case ReceiveWindowKind::ns3:
      break;
  }
  return std::min(win, in.max_win);
}
}  // namespace

std::int64_t linux_select_window(const WindowInput& in) noexcept {
  // __tcp_select_window, Linux 6.1 net/ipv4/tcp_output.c.
  const std::int64_t mss = in.maxseg;
  const std::int64_t full_space = in.rcvbuf;  // min(window_clamp, tcp_full_space)
  std::int64_t free_space = std::max<std::int64_t>(in.space, 0);
  const std::int64_t unit = std::int64_t{1} << in.wscale;
  if (free_space < full_space / 2) {
    // "free_space might become our new window, make sure we don't increase it due to wscale"
    free_space = free_space / unit * unit;
    if (free_space < full_space / 16 || free_space < mss) return 0;
  }
  if (in.ssthresh > 0 && free_space > in.ssthresh) free_space = in.ssthresh;
  if (in.wscale > 0) return (free_space + unit - 1) / unit * unit;  // ALIGN(window, 1 << wscale)
  // "If our current window offering is within 1 mss of the free space we just keep it."
  std::int64_t window = in.last_wnd;
  if (mss <= 0) return free_space;
  if (window <= free_space - mss || window > free_space)
    window = free_space / mss * mss;
  else if (mss == full_space && free_space > window + full_space / 2)
    window = free_space;
  return window;
}

std::int64_t linux_grow_ssthresh(std::int64_t ssthresh, std::int64_t clamp, std::int64_t space,
                                 std::int64_t advmss, std::int64_t len) noexcept {
  // tcp_grow_window, Linux 6.1 net/ipv4/tcp_input.c (called from tcp_event_data_recv when
  // skb->len >= 128).
  if (len < 128) return ssthresh;
  const std::int64_t room = std::min(clamp, space) - ssthresh;
  if (room <= 0) return ssthresh;
  const std::int64_t incr = std::max(2 * advmss, 2 * len);
  return ssthresh + std::min(room, incr);
}

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
