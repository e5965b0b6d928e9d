// ackstall/sim/nagle.h — Nagle variants as one pure decision function.
//
// The TCP endpoint asks only about a *short* segment (len < maxseg) that would empty the send
// buffer; full segments always go, and window-limited short segments fall to the endpoint's
// sender-SWS rules (BSD tcp_output: len >= max_sndwnd/2, or retransmission).
//   off      — TCP_NODELAY: BSD tcp_output `if ((idle || tp->t_flags & TF_NODELAY) &&
//              len + off >= so->so_snd.sb_cc) goto send;` (docs/STACKS.md §3).
//   classic  — RFC 896 as in BSD tcp_output: the same test with NODELAY clear: a short segment
//              goes only when idle = (snd_max == snd_una), nothing un-ACKed (§3; Windows:
//              KB214397 "held until the previous data is ACKed", §1).
//   minshall — Linux tcp_nagle_check()/tcp_minshall_check(): a short segment is held only while
//              a previously sent short segment is un-ACKed (snd_sml > snd_una) (§4).
#pragma once

#include "ackstall/sim/config.h"

namespace ackstall::sim {

struct NagleInput {
  bool idle = true;           // snd_max == snd_una: nothing un-ACKed
  bool short_unacked = false; // Minshall: snd_sml > snd_una (a sent short segment is un-ACKed)
};

// True: the short, buffer-emptying segment may be sent now.
constexpr bool nagle_allows_short(NagleKind kind, const NagleInput& in) noexcept {
  switch (kind) {
    case NagleKind::off: return true;
    case NagleKind::classic: return in.idle;
    case NagleKind::minshall: return !in.short_unacked;
  }
  return true;
}

}  // namespace ackstall::sim
