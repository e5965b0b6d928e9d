#include "ackstall/live/tracker.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

namespace ackstall::live {
namespace {

// S's socket as it was when it opened: counters at zero, nothing out; as long before S as it was
// busy (tcpi_busy_time), but not before SINCE_NS (the previous round).
Sample opened_before(const Sample& s, std::int64_t since_ns) {
  Sample o;
  o.key = s.key;
  o.info.state = s.info.state;
  o.info.options = s.info.options;
  o.info.snd_mss = s.info.snd_mss;
  o.info.snd_cwnd = s.info.snd_cwnd;
  o.info.min_rtt_us = s.info.min_rtt_us;
  o.info.rtt_us = s.info.rtt_us;
  const auto zero = [](const std::optional<std::uint64_t>& v) { return v ? std::optional<std::uint64_t>{0} : std::nullopt; };
  // Linux counts the SYN in tcpi_bytes_acked (tcp_ack: snd_una moves past it), so a socket that
  // has sent no data reads 1: its opening state is that 1, not 0, or a connecting client that
  // only receives would show 1 byte sent and be taken for a sender (attribution.cc's role).
  o.info.bytes_acked = std::min<std::uint64_t>(s.info.bytes_acked, 1);
  o.info.busy_us = zero(s.info.busy_us);
  o.info.rwnd_limited_us = zero(s.info.rwnd_limited_us);
  o.info.sndbuf_limited_us = zero(s.info.sndbuf_limited_us);
  const auto busy_ns = static_cast<std::int64_t>(s.info.busy_us.value_or(0)) * 1000;
  o.at_ns = std::max(since_ns, s.at_ns - busy_ns);
  return o;
}

}  // namespace

bool busier(const ConnectionView& a, const ConnectionView& b) {
  const auto moved = [](const Attribution& x) { return x.bytes_acked + x.bytes_received; };
  if (moved(a.last) != moved(b.last)) return moved(a.last) > moved(b.last);
  if (moved(a.total) != moved(b.total)) return moved(a.total) > moved(b.total);
  return a.now.key.cookie < b.now.key.cookie;
}

std::vector<ConnectionView> Tracker::update(std::vector<Sample> samples,
                                            const std::unordered_map<std::string, std::int64_t>& stalls,
                                            const std::unordered_map<std::string, std::int64_t>& losses) {
  for (auto& [cookie, e] : connections_) e.seen = false;
  std::vector<ConnectionView> active;
  std::unordered_set<std::string> live_keys;  // "local remote" of the sockets sampled this round
  const std::optional<std::int64_t> previous_round = last_round_ns_;
  if (!samples.empty()) last_round_ns_ = samples.front().at_ns;
  for (Sample& s : samples) {
    auto [it, fresh] = connections_.try_emplace(s.key.cookie);
    Entry& e = it->second;
    e.seen = true;
    e.view.closed = false;
    if (fresh && previous_round) {
      // Opened since the previous round: its counters started at zero, its busy time is its life
      // (at most the time since that round), so its first interval is attributed too.
      e.view.now = opened_before(s, *previous_round);
      fresh = false;
    }
    if (!fresh) {
      e.view.last = attribute(e.view.now, s, &e.busy_carry_ns);
      const std::string key = events_key(s.key.local, s.key.remote);
      live_keys.insert(key);
      if (const auto st = stalls.find(key); st != stalls.end()) e.pending_stall_ns += st->second;
      if (const auto lo = losses.find(key); lo != losses.end()) e.pending_loss_ns += lo->second;
      // Loss first: a stall inside a recovery is the loss's (trace_events.h).
      if (events_ || e.pending_loss_ns > 0) e.pending_loss_ns = apply_event_loss(e.view.last, e.pending_loss_ns);
      if (e.pending_stall_ns > 0) e.pending_stall_ns = apply_event_stalls(e.view.last, e.pending_stall_ns);
      accumulate(e.view.total, e.view.last);
    }
    e.view.now = std::move(s);
    if (!fresh && e.view.last.role != Role::idle) {
      e.view.verdict = judge(e.view.last, e.view.now);
      active.push_back(e.view);
    }
  }
  // Gone sockets stay for the summary if they ever moved data; the others are forgotten.
  std::erase_if(connections_, [](const auto& kv) { return !kv.second.seen && kv.second.view.total.role == Role::idle; });
  for (auto& [cookie, e] : connections_) {
    e.view.closed = !e.seen;
    // Gone: the event time not yet placed (and what the events still bring) goes into its total
    // (its last intervals), not lost.
    // The events are keyed by addresses: a closed socket whose pair a new socket took again leaves
    // them to the new one (counted there above), not counted twice.
    if (const std::string key = events_key(e.view.now.key.local, e.view.now.key.remote);
        e.view.closed && e.view.total.role == Role::sender && !live_keys.contains(key)) {
      if (const auto st = stalls.find(key); st != stalls.end()) e.pending_stall_ns += st->second;
      if (const auto lo = losses.find(key); lo != losses.end()) e.pending_loss_ns += lo->second;
    }
    if (e.view.closed && e.pending_loss_ns > 0) e.pending_loss_ns = apply_event_loss(e.view.total, e.pending_loss_ns, false);
    if (e.view.closed && e.pending_stall_ns > 0) e.pending_stall_ns = apply_event_stalls(e.view.total, e.pending_stall_ns, false);
  }
  std::sort(active.begin(), active.end(), busier);
  return active;
}

std::vector<ConnectionView> Tracker::summary() const {
  std::vector<ConnectionView> out;
  for (const auto& [cookie, e] : connections_) {
    if (e.view.total.role == Role::idle) continue;
    ConnectionView v = e.view;
    v.verdict = judge(v.total, v.now);
    v.last = v.total;  // busiest by everything it moved
    out.push_back(std::move(v));
  }
  std::sort(out.begin(), out.end(), busier);
  return out;
}

}  // namespace ackstall::live
