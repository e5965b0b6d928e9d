#include "ackstall/pcap/peer_stall.h"

#include <fmt/format.h>

#include <algorithm>

#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/flow_key.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {
namespace {

double seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

// "10.0.0.2:5001 -> 10.0.0.1:40000": the peer's direction, seen from `d`.
std::string peer_direction(const DirectionReport& d) {
  return fmt::format("{} -> {}", format_socket_addr(d.receiver), format_socket_addr(d.sender));
}

// The peer's stalls, in the limit-cause words ("the peer's delayed-ACK stalls").
std::string stalls_of(core::LimitCause c) {
  switch (c) {
    case core::LimitCause::delayed_ack: return "delayed-ACK stalls";
    case core::LimitCause::loss: return "loss recoveries";
    case core::LimitCause::receiver_window: return "waits on the receiver's window";
    case core::LimitCause::send_buffer: return "waits on the sender's buffer or per-send quota";
    default: return fmt::format("stalls ({})", core::describe(c));
  }
}

// The peer's stalls are half or more of the time this side waited for the peer's data.
bool mostly_stalls(const PeerStallLink& l) { return 2 * l.overlap_ns >= l.wait_ns; }

}  // namespace

std::optional<std::string> waits_on_peer_evidence(const DirectionReport& d) {
  if (!d.waits_on_peer) return std::nullopt;
  const PeerStallLink& l = *d.waits_on_peer;
  return fmt::format(
      "request/response: {} of its {} wait{} for the peer's data overlap the peer's {} ({:.3f} s of {:.3f} s "
      "waited; direction {}): {}",
      l.linked_waits, l.waits, l.waits == 1 ? "" : "s", stalls_of(l.cause), seconds(l.overlap_ns), seconds(l.wait_ns),
      peer_direction(d),
      mostly_stalls(l) ? "it waits on the peer's stalls more than on the peer's application"
                       : "the rest of its waiting is the peer's application");
}

std::optional<std::string> delays_peer_evidence(const DirectionReport& d) {
  if (!d.delays_peer) return std::nullopt;
  const PeerStallLink& l = *d.delays_peer;
  return fmt::format(
      "request/response: its {} also hold up the peer's reply: the peer ({}) waits on them in {} of its {} "
      "wait{} for this side's data ({:.3f} s)",
      stalls_of(l.cause), peer_direction(d), l.linked_waits, l.waits, l.waits == 1 ? "" : "s",
      seconds(l.overlap_ns));
}

void report_peer_stall(const DirectionReport& d, Diagnosis& g) {
  if (d.delays_peer && g.problem == d.delays_peer->cause) {
    g.mechanism += fmt::format(" These stalls also hold up the peer's reply ({} of its {} waits for this side's data).",
                               d.delays_peer->linked_waits, d.delays_peer->waits);
  }
  // The waiting side: where the peer's reply set its pace and nothing of its own is a problem, the
  // wait is the peer's stall (not its application's think time): the fix is that stall's.
  if (!d.waits_on_peer || g.problem || g.accounts.empty() || g.too_little ||
      g.accounts.front().cause != core::LimitCause::peer_reply) {
    return;
  }
  const PeerStallLink& l = *d.waits_on_peer;
  if (!mostly_stalls(l)) {
    // Most of the waiting is the peer's application: the verdict stays its, the stalls a part.
    g.mechanism += fmt::format(" Part of the waiting is the peer's {}: {} of its {} waits ({:.3f} s of {:.3f} s), in "
                               "the direction {}.",
                               stalls_of(l.cause), l.linked_waits, l.waits, seconds(l.overlap_ns), seconds(l.wait_ns),
                               peer_direction(d));
    g.fixes.push_back(fmt::format("then fix the peer's {} in {} (that direction's report lists the fixes): {:.3f} s "
                                  "of the waits here go with them",
                                  stalls_of(l.cause), peer_direction(d), seconds(l.overlap_ns)));
    return;
  }
  const std::string generic = " TCP is not the limit: each request waits for the peer's reply.";
  const std::string named = fmt::format(
      " TCP in this direction is not the limit, the peer's is: {} of its {} waits for the peer's reply are the "
      "peer's {} ({:.3f} s of {:.3f} s), in the direction {}.",
      l.linked_waits, l.waits, stalls_of(l.cause), seconds(l.overlap_ns), seconds(l.wait_ns), peer_direction(d));
  if (const auto at = g.mechanism.find(generic); at != std::string::npos) {
    g.mechanism.replace(at, generic.size(), named);
  } else {
    g.mechanism += named;
  }
  std::erase_if(g.fixes, [](const std::string& f) { return f.starts_with("request/response: the peer's time"); });
  g.fixes.push_back(fmt::format("fix the peer's {} in {} (that direction's report lists the fixes): the waits here "
                                "go with them",
                                stalls_of(l.cause), peer_direction(d)));
  if (l.cause == core::LimitCause::delayed_ack) {
    g.fixes.push_back(
        "this side receives the peer's data and holds its ACK: ACK at once here (Linux TCP_QUICKACK after each "
        "read, BSD net.inet.tcp.ackonpush=1, Windows TcpAckFrequency=1; STACKS §1-§4), or let the peer write each "
        "request in one send (or set TCP_NODELAY where Nagle holds its second piece, RFC 896)");
  }
  g.would_not_help.push_back(
      "pipelining requests or running several at once: the waits are the peer's stalls, which each request meets "
      "again");
}

}  // namespace ackstall::pcap
