// ackstall/sim/receive_window.h — advertised window and the window-update-on-read rule.
//
// Pure functions over byte counts. `space` = receive buffer minus unread bytes; `promised` =
// rcv_adv - rcv_nxt, the part of the last advertised window not yet used by the peer.
//   bsd   — OpenBSD tcp_output (docs/STACKS.md §3):
//             win = sbspace; if (win < sb_hiwat/4 && win < t_maxseg) win = 0;  (receiver SWS)
//             if (win < rcv_adv - rcv_nxt) win = rcv_adv - rcv_nxt;           (never shrink)
//           window update when the application reads (PRU_RCVD -> tcp_output):
//             adv = min(win, TCP_MAXWIN << rcv_scale) - (rcv_adv - rcv_nxt);
//             send if adv >= 2 * t_maxseg or 2 * adv >= sb_hiwat.
//   linux — __tcp_select_window (Linux 6.1 tcp_output.c): free space (0 below one MSS when under
//           half the buffer), capped by rcv_ssthresh; with window scaling ALIGNed up to
//           1 << rcv_wscale, without it rounded down to whole rcv_mss unless the current offer
//           (tp->rcv_wnd) is within one MSS below the free space (then kept); tcp_select_window
//           never shrinks; tcp_cleanup_rbuf: if 2 * rcv_window_now <= window_clamp and the new
//           window >= 2 * rcv_window_now, ACK (§4). rcv_ssthresh: tcp_grow_window (linux_grow_ssthresh).
//   ns3   — TcpSocketBase::AdvertisedWindowSize: free space; no update on read (peers README).
#pragma once

#include "ackstall/sim/config.h"

#include <cstdint>

namespace ackstall::sim {

struct WindowInput {
  std::int64_t space = 0;     // receive buffer free bytes
  std::int64_t rcvbuf = 0;    // receive buffer size (sb_hiwat / window_clamp)
  std::int64_t maxseg = 0;    // t_maxseg / rcv_mss
  std::int64_t promised = 0;  // rcv_adv - rcv_nxt (>= 0)
  std::int64_t max_win = 65535;  // TCP_MAXWIN << rcv_scale
  // Linux only (0 = not used): tp->rcv_ssthresh, rcv_wscale, tp->rcv_wnd (the last offer).
  std::int64_t ssthresh = 0;
  std::int32_t wscale = 0;
  std::int64_t last_wnd = 0;
};

// Linux __tcp_select_window before tcp_select_window's never-shrink step (for __tcp_ack_snd_check's
// "__tcp_select_window(sk) >= tp->rcv_wnd").
std::int64_t linux_select_window(const WindowInput& in) noexcept;

// Linux tcp_grow_window (6.1 tcp_input.c), on an in-order data segment of `len` >= 128 bytes:
// room = min(window_clamp, tcp_space) - rcv_ssthresh; if room > 0, rcv_ssthresh += min(room,
// max(2 * advmss, 2 * len)). Assumes the skb's truesize passes "tcp_win_from_space(truesize) <=
// len" (payload-byte accounting; truesize is not modelled). Returns the new rcv_ssthresh.
std::int64_t linux_grow_ssthresh(std::int64_t ssthresh, std::int64_t clamp, std::int64_t space,
                                 std::int64_t advmss, std::int64_t len) noexcept;

// Window to advertise now, in bytes (before scaling).
std::int64_t advertised_window(ReceiveWindowKind kind, const WindowInput& in) noexcept;

// After an application read: must a window-update ACK go out now?
bool window_update_due(ReceiveWindowKind kind, const WindowInput& in) noexcept;

}  // namespace ackstall::sim
