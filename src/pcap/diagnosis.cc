#include "ackstall/pcap/diagnosis.h"

#include <fmt/format.h>

#include <algorithm>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/delayed_ack_timers.h"

namespace ackstall::pcap {
namespace {

template <class Map>
std::optional<typename Map::key_type> mode(const Map& m) {
  if (m.empty()) return std::nullopt;
  auto best = m.begin();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (it->second > best->second) best = it;
  }
  return best->first;
}

std::string kb(std::uint64_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KB", bytes / 1024);
  return fmt::format("{} bytes", bytes);
}

std::string plan_text(const std::vector<std::size_t>& plan) {
  std::string s;
  for (std::size_t c : plan) s += fmt::format("{}{}", s.empty() ? "" : " + ", c);
  return s;
}

}  // namespace

Diagnosis diagnose(const DirectionReport& d) {
  Diagnosis g;
  g.mss = d.effective_mss ? *d.effective_mss : d.max_segment;
  g.in_flight_limit = std::max(d.max_in_flight, d.max_outstanding_at_stall);
  g.window_offered = d.max_window_offered;
  g.write_size = mode(d.write_sizes);
  g.segments_per_write = mode(d.segments_per_write);
  g.writes = d.writes;
  const std::uint64_t delayed = d.stall_counts[static_cast<std::size_t>(StallKind::delayed_ack)];

  // Evidence: the in-flight limit.
  const bool sender_limited = g.window_offered > 0 && 2 * g.in_flight_limit <= g.window_offered;
  g.evidence.push_back(fmt::format(
      "in flight: never more than {} bytes {} while up to {} bytes were offered{}", g.in_flight_limit,
      d.stall_count == 0 ? "at once" : "when the sender went idle", g.window_offered,
      sender_limited ? fmt::format(": a send buffer or per-send quota of about {}", kb(g.in_flight_limit))
                     : ""));
  // The send pattern.
  if (g.write_size && g.segments_per_write) {
    const bool odd = *g.segments_per_write % 2 == 1;
    g.evidence.push_back(fmt::format(
        "writes: {} PSH-ended writes, most of {} bytes in {} segment{} ({}){}", g.writes, *g.write_size,
        *g.segments_per_write, *g.segments_per_write == 1 ? "" : "s", odd ? "odd" : "even",
        odd ? ": one segment is left alone at the end of every write" : ""));
  } else {
    g.evidence.push_back("writes: no PSH seen, write boundaries unknown");
  }
  g.evidence.push_back(d.nagle_holds > 0
                           ? fmt::format("Nagle: {} sub-MSS segments sent only once all before them were "
                                         "ACKed (first: frame {})", d.nagle_holds, d.nagle_hold_frame)
                           : std::string("Nagle: no segment held for an ACK"));
  // The receiver.
  std::string rule = "ACK rule unknown";
  switch (d.ack_every) {
    case AckEvery::every_second_segment: rule = "ACKs every second segment"; break;
    case AckEvery::every_segment: rule = "ACKs every segment"; break;
    case AckEvery::other: rule = "stretch ACKs (several segments each)"; break;
    case AckEvery::unknown: break;
  }
  if (d.delayed_ack_timeout_ns) {
    g.timer_fits = core::delayed_ack_timer_fits(*d.delayed_ack_timeout_ns);
    std::string fits;
    for (const auto& f : g.timer_fits) fits += (fits.empty() ? "" : "; ") + f;
    g.evidence.push_back(fmt::format("receiver: {}; delayed-ACK timer ~{:.1f} ms (median of {}){}", rule,
                                     static_cast<double>(*d.delayed_ack_timeout_ns) / 1e6, delayed,
                                     fits.empty() ? "" : ", fits " + fits));
  } else {
    g.evidence.push_back(fmt::format("receiver: {}; no delayed-ACK wait seen", rule));
  }

  // Verdict.
  if (d.stall_count == 0) {
    g.mechanism = "No stall at or above the threshold: the sender never waited on the receiver.";
    return g;
  }
  const std::uint64_t n = d.stall_count;
  auto count = [&d](StallKind k) { return d.stall_counts[static_cast<std::size_t>(k)]; };
  if (2 * delayed >= n) {
    const std::uint64_t w = g.write_size.value_or(g.in_flight_limit);
    g.mechanism = fmt::format(
        "The sender stops with at most {} bytes in flight{} and the receiver holds the ACK of the "
        "lone last segment for its ~{:.0f} ms delayed-ACK timer: {} of {} stalls are that wait.",
        g.in_flight_limit,
        g.write_size ? fmt::format(" (each {}-byte write in {} segments)", *g.write_size,
                                   g.segments_per_write.value_or(0))
                     : "",
        static_cast<double>(d.delayed_ack_timeout_ns.value_or(0)) / 1e6, delayed, n);
    if (d.nagle_holds > 0) {
      g.fixes.push_back(fmt::format(
          "disable Nagle on the sender (TCP_NODELAY): {} sub-MSS segments waited for an ACK", d.nagle_holds));
    }
    if (g.mss > 0 && g.in_flight_limit > g.mss) {
      // The seed's policy (core/chunk_policy.h, STACKS §0) with the limit as SO_SNDBUF.
      const core::ChunkPolicy policy(core::PolicyKind::seed,
                                     {.sndbuf = static_cast<std::int64_t>(g.in_flight_limit),
                                      .mss = static_cast<std::int64_t>(g.mss)});
      g.chunk_plan = policy.plan(static_cast<std::size_t>(w));
      g.fixes.push_back(fmt::format(
          "chunk each send below the in-flight limit in whole MSS (the seed's policy, `--chunk seed`): "
          "with MSS {} and a limit of {} bytes a {}-byte write goes as {}", g.mss, g.in_flight_limit, w,
          g.chunk_plan.size() > 1 ? plan_text(g.chunk_plan) : fmt::format("{} (not split: below the limit)", w)));
    }
    g.fixes.push_back(fmt::format(
        "raise SO_SNDBUF above the write size (> {} bytes; Winsock KB214397's rule, STACKS §1)", w));
    g.fixes.push_back(
        "ACK on PSH at the receiver (OpenBSD net.inet.tcp.ackonpush=1, NetBSD ack_on_push, STACKS §3; "
        "Windows TcpAckFrequency=1, STACKS §1)");
    if (d.nagle_holds == 0) {
      g.would_not_help.push_back(
          "TCP_NODELAY on the sender: the lone segment is the write's PSH tail, sent at once, not one "
          "Nagle held");
    }
    g.would_not_help.push_back("a larger receive window: the sender never filled the one offered");
  } else if (count(StallKind::retransmission) * 2 >= n) {
    g.mechanism = "Most stalls end in a retransmission: segments or ACKs were lost and the sender waited "
                  "for its retransmission timeout.";
    g.fixes.push_back("find the loss (interface errors, queue drops); SACK and RACK shorten the recovery");
  } else if (count(StallKind::zero_window) + count(StallKind::window_update) + count(StallKind::window_limited) >
             n / 2) {
    g.mechanism = "Most stalls wait on the receiver's window: the receiving application reads slowly or "
                  "its buffer is small.";
    g.fixes.push_back("raise the receiver's SO_RCVBUF / let it read faster; window scaling on both SYNs");
  } else {
    g.mechanism = "Most stalls end with an ACK of several segments arriving late: a long RTT, a busy "
                  "receiver or lost ACKs, not the delayed-ACK timer.";
  }
  return g;
}

}  // namespace ackstall::pcap
