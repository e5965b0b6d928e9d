#include "ackstall/pcap/diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/delayed_ack_timers.h"
#include "ackstall/pcap/capture_artefacts.h"
#include "ackstall/pcap/evidence.h"
#include "ackstall/pcap/look_alike.h"
#include "ackstall/pcap/mechanism.h"
#include "ackstall/pcap/peer_stall.h"
#include "ackstall/pcap/stack_fit.h"

namespace ackstall::pcap {
namespace {

// A wait before the first data shorter than this (100 ms) is not reported as the application's
// latency: a program that connects and then opens a file, say.
constexpr std::int64_t kLateFirstDataNs = 100'000'000;

using core::LimitCause;

template <class Map>
std::optional<typename Map::key_type> mode(const Map& m) {
  if (m.empty()) return std::nullopt;
  auto best = m.begin();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (it->second > best->second) best = it;
  }
  return best->first;
}

std::string rate(double bytes_per_s) {
  if (bytes_per_s >= 1e6) return fmt::format("{:.2f} MB/s", bytes_per_s / 1e6);
  return fmt::format("{:.2f} KB/s", bytes_per_s / 1e3);
}

// "10 x 1448 + 448": a run of three or more equal chunks is written once with its count.
std::string plan_text(const std::vector<std::size_t>& plan) {
  std::string s;
  for (std::size_t i = 0; i < plan.size();) {
    std::size_t n = 1;
    while (i + n < plan.size() && plan[i + n] == plan[i]) ++n;
    const std::string part = n >= 3 ? fmt::format("{} x {}", n, plan[i]) : fmt::format("{}", plan[i]);
    s += (s.empty() ? "" : " + ") + part;
    if (n == 2) s += fmt::format(" + {}", plan[i]);
    i += n;
  }
  return s;
}

std::string ms(std::int64_t ns) {
  const double v = static_cast<double>(ns) / 1e6;
  return v < 10 ? fmt::format("{:.3f} ms", v) : fmt::format("{:.1f} ms", v);
}

// The initial TTL a captured TTL came down from: the next of 32, 64, 128, 255 (RFC 1700's
// defaults: 64 Linux, BSD, macOS; 128 Windows; 255 Solaris and network equipment; as p0f).
int initial_ttl(std::uint8_t ttl) {
  for (int t : {32, 64, 128}) {
    if (ttl <= t) return t;
  }
  return 255;
}

StackGuess guess_sender(const DirectionReport& d) {
  if (d.sender_ttl == 0) return {};
  const int t = initial_ttl(d.sender_ttl);
  const std::string ev = fmt::format("TTL {} (initial {})", d.sender_ttl, t);
  if (t == 128) return {StackFamily::windows, ev + ": Windows, so Cygwin/MSYS2 too"};
  if (t == 64) return {StackFamily::unix_like, ev + ": Linux, BSD or macOS"};
  return {StackFamily::unknown, ev};
}

StackGuess guess_receiver(const DirectionReport& d) {
  const int t = d.receiver_ttl != 0 ? initial_ttl(d.receiver_ttl) : 0;
  const std::string ttl_ev = d.receiver_ttl != 0 ? fmt::format("TTL {} (initial {})", d.receiver_ttl, t) : "";
  // A timer is a stack's only when it recurs: one hold may be a late ACK on a jittery path.
  const bool recurring = d.stall_counts[static_cast<std::size_t>(StallKind::delayed_ack)] >= 2;
  if (d.delayed_ack_timeout_ns && recurring) {
    const double hold = static_cast<double>(*d.delayed_ack_timeout_ns) / 1e6;
    const std::string ev = fmt::format("delayed-ACK hold ~{:.0f} ms{}", hold, ttl_ev.empty() ? "" : ", " + ttl_ev);
    // Timers (docs/STACKS.md): Linux 40 ms minimum (§4), FreeBSD 100 ms, OpenBSD/Windows 200 ms.
    if (hold_fits_timer(hold, kLinuxTimerMs) && t != 128) return {StackFamily::linux_, ev + ": fits Linux"};
    if (t == 128) return windows_timer_fit(hold, ev);
    if (t == 64 && hold > 60) return {StackFamily::bsd, ev + ": fits a BSD"};
  }
  if (t == 128) return {StackFamily::windows, ttl_ev + ": Windows"};
  if (t == 64) return {StackFamily::unix_like, ttl_ev + ": Linux, BSD or macOS"};
  return {StackFamily::unknown, ttl_ev};
}

void receiver_ack_fixes(const Diagnosis& g, std::vector<std::string>& fixes) {
  const StackFamily f = g.receiver_stack.family;
  const bool any = f == StackFamily::unknown;
  if (f == StackFamily::linux_ || f == StackFamily::unix_like || any) {
    fixes.push_back(
        "receiver (Linux): set TCP_QUICKACK on the receiving socket after each read (tcp(7)), or for the whole "
        "route `ip route change ROUTE quickack 1` (ip-route(8)); STACKS §4");
  }
  if (f == StackFamily::bsd || f == StackFamily::unix_like || any) {
    fixes.push_back(
        "receiver (BSD): ACK on PSH: OpenBSD/NetBSD `sysctl net.inet.tcp.ackonpush=1`; FreeBSD "
        "`sysctl net.inet.tcp.delayed_ack=0` (STACKS §3)");
  }
  if (f == StackFamily::windows || any) {
    fixes.push_back(
        "receiver (Windows): TcpAckFrequency=1 under the interface's Tcpip\\Parameters\\Interfaces key, or "
        "SIO_TCP_SET_ACK_FREQUENCY on the receiving socket (STACKS §1)");
  }
}

void delayed_ack_fixes(const DirectionReport& d, Diagnosis& g) {
  const bool offload = offloaded_segments(d);  // no Nagle conclusion from offloaded segments
  if (d.nagle_holds > 0 && !offload) {
    g.fixes.push_back(fmt::format(
        "sender: disable Nagle (TCP_NODELAY): {} sub-MSS segment{} waited for an ACK the receiver held (RFC 896; "
        "first: frame {})", d.nagle_holds, d.nagle_holds == 1 ? "" : "s", d.nagle_hold_frame));
  }
  // The sender's in-flight limit: a quota (Winsock's per-send SO_SNDBUF, STACKS §1) or a send
  // buffer when it stays well below the offered window.
  // Nagle's holds with less than a segment in flight are not a quota's: no chunk advice then.
  const bool nagle_only = d.nagle_holds > 0 && g.in_flight_limit < g.mss;
  const bool quota_like = g.window_offered > 0 && 2 * g.in_flight_limit <= g.window_offered;
  // Chunking helps only where a send reaches the limit (a write below it is never split).
  const bool writes_reach_limit = !g.write_size || *g.write_size >= g.in_flight_limit;
  if (!nagle_only && writes_reach_limit && (quota_like || g.sender_stack.family == StackFamily::windows)) {
    if (g.mss > 0 && g.in_flight_limit > g.mss) {
      const std::uint64_t w = g.write_size.value_or(g.in_flight_limit);
      // The seed's policy (core/chunk_policy.h, STACKS §0) with the limit as SO_SNDBUF.
      const core::ChunkPolicy policy(core::PolicyKind::seed,
                                     {.sndbuf = static_cast<std::int64_t>(g.in_flight_limit),
                                      .mss = static_cast<std::int64_t>(g.mss)});
      g.chunk_plan = policy.plan(static_cast<std::size_t>(w));
      g.fixes.push_back(fmt::format(
          "sender: cut each send below the in-flight limit in whole MSS (ackstall::net::ChunkedSender, policy "
          "robust or seed; STACKS §0, §8): with MSS {} and a limit of {} bytes a {}-byte write goes as {}",
          g.mss, g.in_flight_limit, w,
          g.chunk_plan.size() > 1 ? plan_text(g.chunk_plan) : fmt::format("{} (not split: below the limit)", w)));
    } else if (g.mss > 0) {
      g.would_not_help.push_back(fmt::format(
          "chunking the sends: the MSS ({}) is not below the in-flight limit ({} bytes), so no whole-MSS piece fits "
          "under the quota; raise SO_SNDBUF above 2 MSS instead", g.mss, g.in_flight_limit));
    }
    if (g.sender_stack.family == StackFamily::windows) {
      g.fixes.push_back(
          "sender (Windows, Cygwin, MSYS2): leave SO_SNDBUF unset so Windows' dynamic send buffering applies, or "
          "size sends from SIO_IDEAL_SEND_BACKLOG_QUERY (docs/WINDOWS.md)");
    }
    if (g.write_size && *g.write_size >= g.in_flight_limit) {
      g.fixes.push_back(fmt::format(
          "sender: raise SO_SNDBUF above the write size (> {} bytes; Winsock KB214397's rule, STACKS §1)",
          *g.write_size));
    }
  }
  receiver_ack_fixes(g, g.fixes);
  if (d.nagle_holds == 0 && !offload) {
    g.would_not_help.push_back(
        "TCP_NODELAY on the sender: no segment was held by Nagle; the lone segment is a send's tail, sent at once");
  }
  g.would_not_help.push_back("a larger receive window: the sender never filled the one offered");
}

void window_fixes(const DirectionReport& d, Diagnosis& g) {
  if (d.zero_window_acks > 0) {
    g.fixes.push_back(fmt::format(
        "receiving application: it read too slowly, the window closed {} time{} (zero window, RFC 9293 3.8.6): read "
        "sooner or in larger blocks", d.zero_window_acks, d.zero_window_acks == 1 ? "" : "s"));
  }
  if (!d.receiver_wscale && g.window_offered <= 65535) {
    g.fixes.push_back(
        "window scaling is off (no window-scale option in both SYNs, RFC 7323 2.2): the window cannot pass 64 KiB; "
        "enable it (Linux net.ipv4.tcp_window_scaling=1, Windows autotuning)");
  }
  const StackFamily f = g.receiver_stack.family;
  if (f == StackFamily::windows) {
    g.fixes.push_back(
        "receiver (Windows): leave SO_RCVBUF unset and receive-window autotuning on (`netsh int tcp set global "
        "autotuninglevel=normal`)");
  } else {
    g.fixes.push_back(
        "receiver: a larger receive buffer: leave SO_RCVBUF unset so autotuning can grow it (Linux: up to "
        "net.ipv4.tcp_rmem's maximum), or set it before connect/listen");
  }
  g.would_not_help.push_back("chunking or a larger SO_SNDBUF on the sender: it already fills the receiver's window");
}

void send_buffer_fixes(Diagnosis& g) {
  if (g.sender_stack.family == StackFamily::windows) {
    g.fixes.push_back(
        "sender (Windows, Cygwin, MSYS2): leave SO_SNDBUF unset so dynamic send buffering grows it with the path, "
        "or follow SIO_IDEAL_SEND_BACKLOG_QUERY (docs/WINDOWS.md)");
  } else {
    g.fixes.push_back(fmt::format(
        "sender: a larger send buffer (about {} bytes in flight now, {} offered): leave SO_SNDBUF unset so "
        "autotuning applies (Linux: up to net.ipv4.tcp_wmem's maximum), or set it to the path's "
        "bandwidth-delay product", g.in_flight_limit, g.window_offered));
  }
  g.would_not_help.push_back("a larger receive window: the sender never filled the one offered");
}

// What was resent: segments (each once), or, where every resend was of data sent before the
// capture began, the retransmissions.
std::string resent_text(const DirectionReport& d) {
  if (d.retransmitted_segments == 0 && d.retransmissions > 0) {
    return fmt::format("{} retransmission{} of data sent before the capture", d.retransmissions,
                       d.retransmissions == 1 ? "" : "s");
  }
  std::string text =
      fmt::format("{} segment{} retransmitted", d.retransmitted_segments, d.retransmitted_segments == 1 ? "" : "s");
  if (d.unseen_tail_losses > 0) {
    text += fmt::format("; {} write{} last segment lost before the capture point, seen only when resent a "
                        "timer later",
                        d.unseen_tail_losses, d.unseen_tail_losses == 1 ? "'s" : "s'");
  }
  return text;
}

void loss_fixes(const DirectionReport& d, Diagnosis& g) {
  g.fixes.push_back(fmt::format(
      "find where packets drop ({} recover{} from {}): interface errors (`ip -s link`), "
      "queue drops (`tc -s qdisc`), then the path", d.loss_events, d.loss_events == 1 ? "y" : "ies", resent_text(d)));
  if (!d.receiver_sack) {
    g.fixes.push_back(
        "SACK was not offered in the receiver's SYN (RFC 2018): with it (and RACK, RFC 8985) several losses "
        "a round trip recover without a timeout (Linux net.ipv4.tcp_sack=1)");
  }
}

void application_fixes(const DirectionReport& d, LimitCause c, Diagnosis& g) {
  if (c == LimitCause::sender_app) {
    g.fixes.push_back(fmt::format(
        "sending application: it left the connection idle {} times (median {} before writing again): write "
        "larger blocks, keep a write queued, avoid sleeps or polls between writes",
        d.idle_starts, d.idle_before_send_ns ? ms(*d.idle_before_send_ns) : std::string("unknown")));
  } else if (c == LimitCause::peer_reply) {
    g.fixes.push_back(
        "request/response: the peer's time to answer sets the pace; pipeline requests or run several at once");
  }
}

}  // namespace

std::string_view to_string(StackFamily f) noexcept {
  switch (f) {
    case StackFamily::unknown: return "unknown";
    case StackFamily::linux_: return "linux";
    case StackFamily::bsd: return "bsd";
    case StackFamily::windows: return "windows";
    case StackFamily::unix_like: return "linux_bsd_or_macos";
  }
  return "?";
}

namespace {

// The facts: the figures, the stacks, where the time went, the problem and what its removal
// would at most give, the receiver's timer fits and the delayed-ACK mechanism (mechanism.h).
Diagnosis find_facts(const DirectionReport& d) {
  Diagnosis g;
  g.mss = d.effective_mss ? *d.effective_mss : d.max_segment;
  g.in_flight_limit = std::max({d.max_in_flight, d.max_outstanding_at_stall, d.flight_per_round ? d.flight_p90 : 0});
  g.window_offered = d.max_window_offered;
  const bool gaps = d.uncaptured_bytes > 0;
  const bool offload = offloaded_segments(d);  // capture_artefacts.h: no write boundaries then
  if (!gaps && !offload) {
    g.write_size = mode(d.write_sizes);
    g.segments_per_write = mode(d.segments_per_write);
  }
  g.writes = d.writes;
  g.sender_stack = guess_sender(d);
  g.receiver_stack = guess_receiver(d);
  const std::uint64_t delayed = d.stall_counts[static_cast<std::size_t>(StallKind::delayed_ack)];

  g.too_little = too_little_evidence(d);
  g.waits_on_peer = d.waits_on_peer;
  g.delays_peer = d.delays_peer;

  // Where the time went.
  for (LimitCause c : core::kLimitCauses) {
    const std::int64_t ns = d.cause_ns[static_cast<std::size_t>(c)];
    if (ns > 0 && d.duration_ns > 0) {
      g.accounts.push_back({c, ns, static_cast<double>(ns) / static_cast<double>(d.duration_ns)});
    }
  }
  std::stable_sort(g.accounts.begin(), g.accounts.end(), [](const auto& a, const auto& b) { return a.ns > b.ns; });
  if (!g.accounts.empty()) g.dominant = g.accounts.front().cause;
  for (const CauseShare& s : g.accounts) {
    // Nothing ACKed: no goodput to improve on, and no bound to state.
    if (g.too_little || !core::is_problem(s.cause) || s.share < kProblemShare || d.bytes_acked == 0) continue;
    // A single delayed ACK (a transfer's last odd segment) is not a pattern.
    if (s.cause == LimitCause::delayed_ack && delayed < 2) continue;
    const double left = static_cast<double>(d.duration_ns - s.ns);
    double bound = 0;  // 0: no bound the capture shows
    if (s.cause == LimitCause::receiver_window) {
      // A larger window lets the flight grow to the path's own limit, which a window-bound
      // capture never reaches: no bound to state (a paced sender's spacing is not the link's).
      bound = std::numeric_limits<double>::infinity();
    } else if (s.cause == LimitCause::send_buffer && d.flight_p50 > 0 && d.max_window_offered > d.flight_p50) {
      // The flight could grow to the receiver's window: the time it took shrinks in proportion.
      const double scaled = static_cast<double>(s.ns) * static_cast<double>(d.flight_p50) /
                            static_cast<double>(d.max_window_offered);
      bound = static_cast<double>(d.bytes_acked) * 1e9 / (left + scaled);
    } else {
      bound = left > 0 ? static_cast<double>(d.bytes_acked) * 1e9 / left : 0;
    }
    // A finite bound is no faster than the back-to-back rate of full-size segments, where the
    // capture shows one above the goodput (spacings of a trickle say nothing about the link): a
    // larger send buffer lets the flight grow, not the link (the seed's patched defaults read
    // "at most 55.63 MB/s" on a 100 Mbit/s link without it).
    if (std::isfinite(bound) && d.back_to_back_ns > 0 && d.effective_mss && d.max_segment >= *d.effective_mss) {
      const double line = static_cast<double>(d.max_segment) * 1e9 / static_cast<double>(d.back_to_back_ns);
      if (line > (1 + kProblemShare) * d.goodput_bytes_per_s) bound = std::min(bound, line);
    }
    // Worth fixing only if removing it could raise the goodput by the same share.
    if (bound < (1 + kProblemShare) * d.goodput_bytes_per_s) continue;
    g.problem = s.cause;
    g.goodput_without_problem = bound;
    break;
  }

  // A single hold may be a late ACK on a jittery path: a timer is fitted only when it recurs.
  if (d.delayed_ack_timeout_ns && delayed >= 2) g.timer_fits = timer_fits_for(*d.delayed_ack_timeout_ns, d.receiver_ttl);
  if (g.problem == LimitCause::delayed_ack) {
    LoneSegmentHold& m = g.lone_segment_hold.emplace();
    m.in_flight_limit = g.in_flight_limit;
    m.write_size = g.write_size;
    m.segments = g.segments_per_write;
    m.hold = std::chrono::nanoseconds(d.delayed_ack_timeout_ns.value_or(0));
    m.holds = delayed;
    m.waits = d.stall_count;
  }
  return g;
}

// The facts worded: what the capture lacks, the evidence lines, the verdict and the fixes.
void word_facts(const DirectionReport& d, Diagnosis& g) {
  const bool gaps = d.uncaptured_bytes > 0;
  const bool offload = offloaded_segments(d);  // capture_artefacts.h: no write boundaries then
  const std::uint64_t delayed = d.stall_counts[static_cast<std::size_t>(StallKind::delayed_ack)];
  if (d.earlier_connections > 0) {
    g.capture_warnings.push_back(fmt::format(
        "the addresses and ports were reused: {} earlier connection{} on them {} left out, this report is the last one's",
        d.earlier_connections, d.earlier_connections == 1 ? "" : "s", d.earlier_connections == 1 ? "is" : "are"));
  }
  if (gaps) {
    g.capture_warnings.push_back(fmt::format(
        "the capture missed segments: {} bytes were ACKed that no captured segment carried ({} sequence hole{}); "
        "write sizes and segment counts are left out, and the time around them is 'not in the capture'",
        d.uncaptured_bytes, d.sequence_holes, d.sequence_holes == 1 ? "" : "s"));
  }

  if (d.starts_mid_stream) {
    g.capture_warnings.push_back(fmt::format(
        "the capture begins mid-stream: the receiver ACKed {} bytes before the first captured data segment{}",
        d.acked_before_data_bytes,
        d.zero_window_before_data_ns > 0
            ? fmt::format(", and offered a zero window for {:.1f} ms, counted as the receiver's window",
                          static_cast<double>(d.zero_window_before_data_ns) / 1e6)
            : std::string()));
  }

  if (auto w = duplicate_frames_warning(d)) g.capture_warnings.push_back(*w);
  if (auto w = forwarded_copies_warning(d)) g.capture_warnings.push_back(*w);
  if (auto w = offload_warning(d)) g.capture_warnings.push_back(*w);

  // Evidence: the application's latency before the transfer (the handshake's last ACK to the
  // first data), when it is longer than a stall and than the path's round trip.
  std::string before;
  if (d.wait_before_data_ns && *d.wait_before_data_ns >= kLateFirstDataNs &&
      *d.wait_before_data_ns > 2 * std::max(d.rtt_floor_ns.value_or(0), d.handshake_rtt_ns.value_or(0))) {
    before = fmt::format("{:.3f} s after the handshake {}", static_cast<double>(*d.wait_before_data_ns) / 1e9,
                         d.peer_spoke_first ? "and after the peer's request: the time this side's application took "
                                              "to answer"
                                            : "with nothing from the peer: this side's application was late to "
                                              "send (its latency, not the network's)");
    g.evidence.push_back("start: first data " + before);
  }

  // Evidence: the in-flight limit.
  const bool sender_limited = g.window_offered > 0 && 2 * g.in_flight_limit <= g.window_offered;
  g.evidence.push_back(fmt::format(
      "in flight: at most {} bytes, {} bytes offered by the receiver{}", g.in_flight_limit, g.window_offered,
      sender_limited && d.flight_waits > 0
          ? fmt::format("; {} {} / {} / {} bytes (25th / 50th / 90th percentile)",
                        d.flight_per_round ? "sent per round trip (the capture is beside the receiver)"
                                           : "at prompt ACKs",
                        d.flight_p25, d.flight_p50, d.flight_p90)
          : ""));
  if (d.rtt_floor_ns || d.handshake_rtt_ns) {
    g.evidence.push_back(fmt::format(
        "path: handshake RTT {}, shortest data-to-ACK time at the capture point {}", 
        d.handshake_rtt_ns ? ms(*d.handshake_rtt_ns) : std::string("unknown"),
        d.rtt_floor_ns ? ms(*d.rtt_floor_ns) : std::string("unknown")));
  }
  if (gaps) {
    g.evidence.push_back("writes: not reliable on a capture with missing segments");
  } else if (offload) {
    g.evidence.push_back("writes: unknown: segments larger than the MSS (offload) hide write boundaries and segment counts");
  } else if (g.write_size && g.segments_per_write) {
    const bool odd = *g.segments_per_write % 2 == 1;
    g.evidence.push_back(fmt::format(
        "writes: {} PSH-ended writes, most of {} bytes in {} segment{} ({}){}", g.writes, *g.write_size,
        *g.segments_per_write, *g.segments_per_write == 1 ? "" : "s", odd ? "odd" : "even",
        odd ? ": one segment is left alone at the end of every write" : ""));
  } else {
    g.evidence.push_back("writes: no PSH seen, write boundaries unknown");
  }
  g.evidence.push_back(offload ? std::string("Nagle: not judged: the capture shows the stack's segments before offload cut them")
                       : d.nagle_holds > 0
                           ? fmt::format("Nagle: {} sub-MSS segment{} sent only once all before {} ACKed (first: "
                                         "frame {})", d.nagle_holds, d.nagle_holds == 1 ? "" : "s",
                                         d.nagle_holds == 1 ? "it was" : "them were", d.nagle_hold_frame)
                           : std::string("Nagle: no segment held for an ACK"));
  std::string rule = "ACK rule unknown";
  switch (d.ack_every) {
    case AckEvery::every_second_segment: rule = "ACKs every second segment"; break;
    case AckEvery::every_segment: rule = "ACKs every segment"; break;
    case AckEvery::other: rule = "stretch ACKs (several segments each)"; break;
    case AckEvery::unknown: break;
  }
  if (d.delayed_ack_timeout_ns) {
    std::string fits;
    for (const auto& f : g.timer_fits) fits += (fits.empty() ? "" : "; ") + f;
    g.evidence.push_back(fmt::format("receiver: {}; delayed-ACK hold ~{} beyond the path (median of {}){}", rule,
                                     ms(*d.delayed_ack_timeout_ns), delayed,
                                     fits.empty() ? "" : ", fits " + fits));
  } else {
    g.evidence.push_back(fmt::format("receiver: {}; no delayed-ACK wait seen", rule));
  }
  // Request/response: this side's waits on the peer's stalls, the peer's waits on this side's (peer_stall.h).
  if (auto e = waits_on_peer_evidence(d)) g.evidence.push_back(*e);
  if (auto e = delays_peer_evidence(d)) g.evidence.push_back(*e);
  if (!g.sender_stack.evidence.empty() || !g.receiver_stack.evidence.empty()) {
    g.evidence.push_back(fmt::format("stacks: sender {}{}; receiver {}{}", to_string(g.sender_stack.family),
                                     g.sender_stack.evidence.empty() ? "" : " (" + g.sender_stack.evidence + ")",
                                     to_string(g.receiver_stack.family),
                                     g.receiver_stack.evidence.empty() ? "" : " (" + g.receiver_stack.evidence + ")"));
  }

  // Verdict.
  if (g.accounts.empty()) {
    g.mechanism = "Too little to judge: the capture holds no measurable span of this transfer (one segment, or no "
                  "ACK for its data).";
    return;
  }
  const CauseShare& top = g.accounts.front();
  const auto thin = g.too_little ? std::nullopt : thin_evidence(d);  // evidence.h: "Likely ..."
  std::string lead = fmt::format("{} {} ({:.0f} % of {:.3f} s).", thin ? "Likely limited by" : "Limited by",
                                 core::describe(top.cause), 100 * top.share, static_cast<double>(d.duration_ns) / 1e9);
  // The network's time is a full path only where the capture shows one (segments at 90 % or
  // more of their back-to-back rate, half_flow.cc's path_full); otherwise it is the round trips
  // of whatever flight the sender had, which may be far too small to fill the path (an
  // interactive exchange of 60-byte writes).
  if (top.cause == LimitCause::network) {
    lead += d.path_full ? " The path is full: segments leave at 90 % or more of their back-to-back rate."
                        : fmt::format(" The path is not shown full: at most {} bytes in flight, each wait a round trip "
                                      "for their ACKs.",
                                      d.max_in_flight);
  }
  const std::string settle = thin ? fmt::format(" Likely, not certain: {}.", *thin) : std::string();
  if (g.too_little) {
    g.mechanism = fmt::format("Too little to judge: {}. The figures it has: {}", *g.too_little, lead);
    if (!before.empty()) g.mechanism += " Before the transfer, its first data came " + before + ".";
    return;
  }
  if (!g.problem && d.bytes_acked == 0) {
    g.mechanism = lead + " None of its data was ACKed in the capture: no goodput to judge a cost by.";
    return;
  }
  if (!g.problem) {
    g.healthy = true;
    std::string why;
    switch (top.cause) {
      case LimitCause::network: why = " Healthy: the path, not the stacks, sets the pace."; break;
      case LimitCause::sender_app: why = " TCP is not the limit: the sending application writes slower than the path carries."; break;
      case LimitCause::peer_reply: why = " TCP is not the limit: each request waits for the peer's reply."; break;
      case LimitCause::delayed_ack:
        why = delayed < 2 ? " A single held ACK is not a pattern: nothing to fix." : " Too little time to matter.";
        break;
      default: why = " It costs too little to be worth fixing."; break;
    }
    g.mechanism = lead + why + settle;
    if (d.stall_count > 0) {
      // A wait's round trip is the path's: only what it held beyond that is the stalls' cost.
      const std::int64_t held = d.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)];
      g.mechanism += fmt::format(" {} wait{} past the threshold ({:.3f} s in all); {:.1f} % of the time was held "
                                 "beyond the path's round trip.",
                                 d.stall_count, d.stall_count == 1 ? "" : "s",
                                 static_cast<double>(d.stalled_ns) / 1e9,
                                 100.0 * static_cast<double>(held) / static_cast<double>(d.duration_ns));
    }
    if (!before.empty() && *d.wait_before_data_ns > d.duration_ns) {
      g.mechanism += " Before the transfer, its first data came " + before + ".";
    }
    application_fixes(d, top.cause, g);
    report_peer_stall(d, g);  // peer_stall.h: a wait for the peer's reply that is the peer's stall
    return;
  }
  const LimitCause p = *g.problem;
  const double share = static_cast<double>(d.cause_ns[static_cast<std::size_t>(p)]) / static_cast<double>(d.duration_ns);
  std::string what;
  switch (p) {
    case LimitCause::delayed_ack:
      what = word(*g.lone_segment_hold);
      delayed_ack_fixes(d, g);
      break;
    case LimitCause::receiver_window:
      what = d.zero_window_acks > 0 ? "The receiver's window closed: its application reads slowly."
                                    : "The sender fills the receiver's window: the receive buffer is too small for "
                                      "the path.";
      window_fixes(d, g);
      break;
    case LimitCause::send_buffer:
      // "Flat" only where the percentiles are (25th >= 70 % of the 90th, half_flow.cc's rule); a
      // flight bounded over many waits is said to be bounded.
      what = fmt::format("In flight {} {} bytes, below the {} bytes the receiver offers: the sender's buffer or "
                         "per-send quota holds the rest.",
                         10 * d.flight_p25 >= 7 * d.flight_p90 ? "stays flat at about" : "stays bounded at most",
                         10 * d.flight_p25 >= 7 * d.flight_p90 ? d.flight_p50 : d.flight_p90, g.window_offered);
      send_buffer_fixes(g);
      break;
    case LimitCause::loss:
      what = fmt::format("Segments were lost: {} recover{} ({}).", d.loss_events, d.loss_events == 1 ? "y" : "ies",
                         resent_text(d));
      loss_fixes(d, g);
      break;
    case LimitCause::not_captured:
      what = "The capture missed segments; what limited that time is not in it.";
      g.fixes.push_back("capture again with a larger buffer (tcpdump -B, dumpcap -B), on the sending or receiving host "
                        "rather than a mirror port");
      break;
    default: break;
  }
  const std::string gain = std::isinf(g.goodput_without_problem)
                               ? fmt::format("without it faster than {}, up to the path's own limit, which the capture "
                                             "does not show", rate(d.goodput_bytes_per_s))
                               : fmt::format("without it at most {} instead of {}", rate(g.goodput_without_problem),
                                             rate(d.goodput_bytes_per_s));
  g.mechanism = fmt::format("{} Problem: {} ({:.0f} % of the time; {}). {}", lead, core::describe(p), 100 * share,
                            gain, what);
  g.mechanism += settle;
  report_quota_or_nagle(d, g);  // look_alike.h: a quota and Nagle, where the wire cannot tell them apart
  report_peer_stall(d, g);      // peer_stall.h: these stalls hold up the peer's reply too
}

}  // namespace

Diagnosis diagnose(const DirectionReport& d) {
  Diagnosis g = find_facts(d);
  word_facts(d, g);
  return g;
}

}  // namespace ackstall::pcap
