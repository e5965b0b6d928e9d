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
//   linux — __tcp_select_window: free space rounded down to whole rcv_mss (0 below one MSS),
//           never shrinking; tcp_cleanup_rbuf: if 2 * rcv_window_now <= window_clamp and the new
//           window >= 2 * rcv_window_now, ACK (§4). (rcv_ssthresh growth is not modelled.)
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
};

// Window to advertise now, in bytes (before scaling).
std::int64_t advertised_window(ReceiveWindowKind kind, const WindowInput& in) noexcept;

// After an application read: must a window-update ACK go out now?
bool window_update_due(ReceiveWindowKind kind, const WindowInput& in) noexcept;

}  // namespace ackstall::sim
