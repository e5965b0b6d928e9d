#include "reply_link.h"

#include <algorithm>

namespace ackstall::pcap::detail {

using core::LimitCause;

void RunRecorder::open(std::uint8_t c, std::int64_t start, std::int64_t end) {
  close();
  open_ = Run{start, end, end - start, c};
}

std::size_t ReplyLink::slot_of(std::uint8_t cls) noexcept {
  switch (cls) {
    case static_cast<std::uint8_t>(LimitCause::delayed_ack): return 0;
    case static_cast<std::uint8_t>(LimitCause::loss): return 1;
    case static_cast<std::uint8_t>(LimitCause::receiver_window): return 2;
    default: return 3;  // kFlightRun
  }
}

void ReplyLink::match(Wait& w, const Run& s) {
  std::int64_t common = std::min(w.end, s.end) - std::max(w.start, s.start);
  if (common <= 0) return;
  // A flight run holds the path's time between its waits too: its share of the overlap is the
  // waits' (taken as spread evenly over the run).
  if (s.busy < s.end - s.start) {
    common = static_cast<std::int64_t>(static_cast<double>(common) * static_cast<double>(s.busy) /
                                       static_cast<double>(s.end - s.start));
  }
  w.overlap[slot_of(s.cls)] += common;
}

void ReplyLink::Pairing::settle_wait(const Wait& w) {
  ++wait_count;
  wait_ns += w.end - w.start;
  for (std::size_t i = 0; i < kStallSlots; ++i) {
    // Linked: an overlap of at least the stall threshold with the peer's stalls of one class.
    if (w.overlap[i] >= std::max<std::int64_t>(threshold_ns, 1)) {
      ++linked_waits[i];
      overlap_ns[i] += w.overlap[i];
    }
  }
}

void ReplyLink::Pairing::add_wait(const Run& r) {
  Wait w{r.start, r.end};
  for (const Run& s : stalls) match(w, s);
  waits.push_back(w);
  if (waits.size() > kMaxKept) {  // the oldest half settled as they are: O(1) amortised
    for (std::size_t i = 0; i < kMaxKept / 2; ++i) settle_wait(waits[i]);
    waits.erase(waits.begin(), waits.begin() + static_cast<std::ptrdiff_t>(kMaxKept / 2));
  }
}

void ReplyLink::Pairing::add_stall(const Run& r) {
  for (Wait& w : waits) match(w, r);
  stalls.push_back(r);
  if (stalls.size() > kMaxKept) stalls.erase(stalls.begin(), stalls.begin() + static_cast<std::ptrdiff_t>(kMaxKept / 2));
}

void ReplyLink::Pairing::prune(std::int64_t stalls_horizon, std::int64_t waits_horizon) {
  // Runs come in time order: the oldest end first.
  std::size_t w = 0, s = 0;
  while (w < waits.size() && waits[w].end <= stalls_horizon) settle_wait(waits[w++]);
  while (s < stalls.size() && stalls[s].end <= waits_horizon) ++s;
  waits.erase(waits.begin(), waits.begin() + static_cast<std::ptrdiff_t>(w));
  stalls.erase(stalls.begin(), stalls.begin() + static_cast<std::ptrdiff_t>(s));
}

void ReplyLink::Pairing::settle_all() {
  for (const Wait& w : waits) settle_wait(w);
  waits.clear();
  stalls.clear();
}

void ReplyLink::route(std::vector<Run>& runs, Pairing& as_waiter, Pairing& as_staller) {
  for (const Run& r : runs) {
    if (r.cls == static_cast<std::uint8_t>(LimitCause::peer_reply)) {
      as_waiter.add_wait(r);
    } else {
      as_staller.add_stall(r);
    }
  }
  runs.clear();
}

void ReplyLink::take(RunRecorder& a, std::int64_t a_horizon, RunRecorder& b, std::int64_t b_horizon) {
  if (a.finished().empty() && b.finished().empty()) return;
  route(a.finished(), pairs_[0], pairs_[1]);
  route(b.finished(), pairs_[1], pairs_[0]);
  pairs_[0].prune(b_horizon, a_horizon);
  pairs_[1].prune(a_horizon, b_horizon);
}

std::optional<PeerStallLink> ReplyLink::link_of(const Pairing& p, LimitCause staller_flight) {
  // The flight's prompt waits are a stall only where they were the sender's buffer or the
  // receiver's window (HalfFlow::report decides), not where they were the path's.
  std::optional<PeerStallLink> best;
  const auto consider = [&](LimitCause c, std::uint64_t waits, std::int64_t overlap) {
    // One wait on one stall is not a pattern (as a single held ACK is not: diagnosis.h).
    if (waits < 2 || (best && overlap <= best->overlap_ns)) return;
    best = PeerStallLink{.cause = c, .waits = p.wait_count, .linked_waits = std::min(waits, p.wait_count),
                         .wait_ns = p.wait_ns, .overlap_ns = std::min(overlap, p.wait_ns)};
  };
  const bool flight_stalls = staller_flight == LimitCause::send_buffer || staller_flight == LimitCause::receiver_window;
  const bool flight_is_window = staller_flight == LimitCause::receiver_window;
  consider(LimitCause::delayed_ack, p.linked_waits[0], p.overlap_ns[0]);
  consider(LimitCause::loss, p.linked_waits[1], p.overlap_ns[1]);
  consider(LimitCause::receiver_window, p.linked_waits[2] + (flight_is_window ? p.linked_waits[3] : 0),
           p.overlap_ns[2] + (flight_is_window ? p.overlap_ns[3] : 0));
  if (flight_stalls && !flight_is_window) consider(LimitCause::send_buffer, p.linked_waits[3], p.overlap_ns[3]);
  return best;
}

void ReplyLink::settle(RunRecorder a, RunRecorder b, DirectionReport& ab, DirectionReport& ba) const {
  a.finish();
  b.finish();
  ReplyLink all = *this;
  all.take(a, a.horizon(), b, b.horizon());
  for (Pairing& p : all.pairs_) p.settle_all();
  ab.waits_on_peer = ba.delays_peer = link_of(all.pairs_[0], ba.flight_cause);
  ba.waits_on_peer = ab.delays_peer = link_of(all.pairs_[1], ab.flight_cause);
}

}  // namespace ackstall::pcap::detail
