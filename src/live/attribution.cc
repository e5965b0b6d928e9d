#include "ackstall/live/attribution.h"

#include <algorithm>
#include <fmt/format.h>

#include "ackstall/core/delayed_ack_timers.h"
#include "ackstall/core/units.h"

namespace ackstall::live {
namespace {

using core::LimitCause;
constexpr std::int64_t kUs = 1000;
constexpr std::uint8_t kCaLoss = 4;                // TCP_CA_Loss (include/net/tcp.h)
constexpr std::uint8_t kOptTimestamps = 1;         // TCPI_OPT_TIMESTAMPS (linux/tcp.h)
constexpr std::int64_t kTickNs = 10'000'000;        // a jiffy at HZ=100, the coarsest (include/linux/jiffies.h)
constexpr std::uint32_t kLoneSegments = 2;         // RFC 1122 4.2.3.2: every second segment ACKed at once

std::int64_t delta_us(const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
  if (!a || !b || *b < *a) return 0;
  return static_cast<std::int64_t>(*b - *a) * kUs;
}

std::int64_t& at(core::CauseTimes& t, LimitCause c) { return t[static_cast<std::size_t>(c)]; }
std::int64_t at(const core::CauseTimes& t, LimitCause c) { return t[static_cast<std::size_t>(c)]; }

// The write queue holds at least 3/5 of the send buffer's limit. A writer bound by its buffer
// blocks at the limit and is woken only once the queue has drained to 2/3 of it (free space >=
// half of what is queued: include/net/sock.h __sk_stream_is_writeable, sk_stream_min_wspace), so
// its queue stays above 2/3; 3/5 leaves a margin for the sample falling just after an ACK.
bool buffer_full(const Sample& s) {
  return s.memory && s.memory->sndbuf > 0 && 5 * std::uint64_t{s.memory->wmem_queued} >= 3 * std::uint64_t{s.memory->sndbuf};
}

}  // namespace

std::string_view to_string(Role r) noexcept {
  switch (r) {
    case Role::idle: return "idle";
    case Role::sender: return "sender";
    case Role::receiver: return "receiver";
  }
  return "?";
}

std::string_view to_string(Severity s) noexcept {
  switch (s) {
    case Severity::none: return "none";
    case Severity::minor: return "minor";
    case Severity::major: return "major";
  }
  return "?";
}

Attribution attribute(const Sample& before, const Sample& after, std::int64_t* busy_carry) {
  Attribution a;
  a.interval_ns = std::max<std::int64_t>(0, after.at_ns - before.at_ns);
  const TcpInfo& b = before.info;
  const TcpInfo& n = after.info;
  a.bytes_acked = n.bytes_acked >= b.bytes_acked ? n.bytes_acked - b.bytes_acked : 0;
  a.bytes_received = n.bytes_received >= b.bytes_received ? n.bytes_received - b.bytes_received : 0;
  a.retransmitted = n.total_retrans >= b.total_retrans ? n.total_retrans - b.total_retrans : 0;
  const std::int64_t busy_total = delta_us(b.busy_us, n.busy_us);
  const bool sent = a.bytes_acked > 0 || busy_total > 0 || n.notsent_bytes > 0 || n.unacked > 0;
  if (!sent) {
    // Nothing out, nothing queued: a socket that has sent more than it received (a sender between
    // its writes) waits on its application; else it is a receiver, or idle. (The SYN takes one
    // sequence number, which tcpi_bytes_acked counts: a socket that sent no data shows 1.)
    if (a.bytes_received == 0 && n.bytes_acked > 1 && n.bytes_acked >= n.bytes_received) {
      a.role = Role::sender;
      at(a.times, LimitCause::sender_app) = a.interval_ns;
    } else {
      a.role = a.bytes_received > 0 ? Role::receiver : Role::idle;
    }
    return a;
  }
  a.role = Role::sender;
  if (a.interval_ns == 0) return a;
  a.chrono_missing = !n.busy_us || !b.busy_us;
  // The chronographs tick in jiffies: clamp to the interval, keep their proportions.
  std::int64_t rwnd = delta_us(b.rwnd_limited_us, n.rwnd_limited_us);
  std::int64_t sndbuf = delta_us(b.sndbuf_limited_us, n.sndbuf_limited_us);
  std::int64_t busy = a.chrono_missing ? a.interval_ns : busy_total;
  if (busy_carry != nullptr && !a.chrono_missing) {
    // The chronographs tick in jiffies (tcp_jiffies32; 4 ms at HZ=250): an interval's busy time
    // reads up to a tick short or long. What one interval reads beyond its length is carried to the
    // next, and a socket with data out at both samples (it never emptied in between, as far as
    // the samples tell) borrows up to a tick of what reads short: the total stays the chronograph's.
    const std::int64_t avail = busy + *busy_carry;
    const bool out_both = b.unacked + b.notsent_bytes > 0 && n.unacked + n.notsent_bytes > 0;
    busy = std::clamp<std::int64_t>(avail, 0, a.interval_ns);
    if (out_both) busy = std::min(a.interval_ns, std::max(busy, avail + kTickNs));
    *busy_carry = std::clamp<std::int64_t>(avail - busy, -kTickNs, kTickNs);
    // The chronographs' split keeps its proportions of what was read.
    if (busy_total > 0 && busy != busy_total) {
      const double scale = static_cast<double>(busy) / static_cast<double>(busy_total);
      const std::int64_t r0 = delta_us(b.rwnd_limited_us, n.rwnd_limited_us);
      const std::int64_t s0 = delta_us(b.sndbuf_limited_us, n.sndbuf_limited_us);
      rwnd = static_cast<std::int64_t>(static_cast<double>(r0) * std::min(scale, 1.0));
      sndbuf = static_cast<std::int64_t>(static_cast<double>(s0) * std::min(scale, 1.0));
    }
  }
  if (busy > a.interval_ns) {
    const double scale = static_cast<double>(a.interval_ns) / static_cast<double>(busy);
    rwnd = static_cast<std::int64_t>(static_cast<double>(rwnd) * scale);
    sndbuf = static_cast<std::int64_t>(static_cast<double>(sndbuf) * scale);
    busy = a.interval_ns;
  }
  rwnd = std::min(rwnd, busy);
  sndbuf = std::min(sndbuf, busy - rwnd);
  std::int64_t rest = busy - rwnd - sndbuf;
  core::CauseTimes& t = a.times;
  at(t, LimitCause::receiver_window) = rwnd;
  at(t, LimitCause::sender_app) = a.interval_ns - busy;
  // Loss: a round trip per retransmitted segment, the RTO while in the Loss state.
  if (a.retransmitted > 0 || n.ca_state == kCaLoss) {
    const std::int64_t per = std::int64_t{std::max(n.rtt_us, 1U)} * kUs;
    std::int64_t loss = per * a.retransmitted;
    if (n.ca_state == kCaLoss) loss += std::int64_t{n.rto_us} * kUs;
    loss = std::min(loss, rest);
    at(t, LimitCause::loss) = loss;
    rest -= loss;
  }
  // Receiver's window, as scan sees it ("window full"): data waits unsent at both samples while
  // in flight leaves no room for another full segment in the peer's window, or fills 3/4 of it,
  // and the congestion window has room (in flight below 3/4 of it). A sample falls anywhere in the
  // sender's cycle, also just after an ACK freed part of the window and before that part left
  // (TCP small queues, the softirq; docs/GUIDE.md §4b, the receiver-window transfer). The kernel's
  // chronograph counts only while its last transmit attempt stopped at the window, and a window
  // opened by less than a segment (RFC 9293 3.8.6.2.1: the sender's SWS avoidance) is not always that.
  const bool cwnd_room = 4 * std::max(b.unacked, n.unacked) <= 3 * n.snd_cwnd;
  if (b.notsent_bytes > 0 && n.notsent_bytes > 0 && cwnd_room && n.snd_wnd && *n.snd_wnd > 0 &&
      ((std::uint64_t{n.unacked} + 1) * n.snd_mss > *n.snd_wnd ||
       4 * std::uint64_t{n.unacked} * n.snd_mss >= 3 * std::uint64_t{*n.snd_wnd})) {
    at(t, LimitCause::receiver_window) += rest;
    rest = 0;
  }
  // Send buffer, as scan sees it (T-RAT "transport limited"): the kernel's chronograph counts
  // only while tcp_cwnd_validate finds the sender not cwnd-limited, which slow start's rule
  // (cwnd < 2 x packets out) keeps false for long; so a busy interval whose buffer was full at
  // both ends (write queue >= 3/5 of SO_SNDBUF: buffer_full) with in flight below 3/4 of both windows
  // is the send buffer's too. In flight must stay below 3/4 of the congestion window at both
  // samples: in slow start the window is what stops the sender (it is full at each sample, RFC
  // 5681 §3.1). (Not "the window did not grow": Linux keeps growing it in slow start while
  // packets out reach half of it, tcp_is_cwnd_limited, which a buffer-bound flight does in bursts.)
  if (buffer_full(before) && buffer_full(after) && cwnd_room && 4 * b.unacked <= 3 * b.snd_cwnd &&
      (!n.snd_wnd || 4 * std::uint64_t{n.unacked} * n.snd_mss <= 3 * std::uint64_t{*n.snd_wnd})) {
    sndbuf += rest;
    rest = 0;
  }
  // Delayed ACK: the smoothed RTT holds the ACK wait; the windowed minimum is the path.
  const std::int64_t srtt = std::int64_t{n.rtt_us} * kUs;
  const std::int64_t hold = srtt - std::int64_t{n.min_rtt_us} * kUs;
  // The hold dominates the time, so one of the two samples falls in it (a lone segment out).
  const bool few_unacked = std::min(b.unacked, n.unacked) <= kLoneSegments;
  if (n.min_rtt_us > 0 && hold >= kMinAckHoldNs && srtt >= 3 * std::int64_t{n.min_rtt_us} * kUs && few_unacked &&
      n.snd_cwnd > kLoneSegments) {
    a.ack_hold_ns = hold;
    const double share = static_cast<double>(hold) / static_cast<double>(srtt);
    const auto from_rest = static_cast<std::int64_t>(static_cast<double>(rest) * share);
    const auto from_sndbuf = static_cast<std::int64_t>(static_cast<double>(sndbuf) * share);
    at(t, LimitCause::delayed_ack) = from_rest + from_sndbuf;
    rest -= from_rest;
    sndbuf -= from_sndbuf;
  }
  at(t, LimitCause::send_buffer) = sndbuf;
  at(t, LimitCause::network) = rest;
  return a;
}

std::int64_t apply_event_stalls(Attribution& a, std::int64_t stall_ns, bool replace) {
  if (a.role != Role::sender) return stall_ns;
  // The hold rule's estimate counts towards the timed stalls; only the difference moves.
  std::int64_t more = replace ? stall_ns - at(a.times, LimitCause::delayed_ack) : stall_ns;
  for (const LimitCause from : {LimitCause::network, LimitCause::send_buffer}) {
    const std::int64_t take = std::clamp<std::int64_t>(more, 0, at(a.times, from));
    at(a.times, from) -= take;
    at(a.times, LimitCause::delayed_ack) += take;
    more -= take;
  }
  return std::max<std::int64_t>(more, 0);
}

std::int64_t apply_event_loss(Attribution& a, std::int64_t loss_ns, bool replace) {
  if (a.role != Role::sender) return loss_ns;
  if (replace) {
    at(a.times, LimitCause::network) += at(a.times, LimitCause::loss);
    at(a.times, LimitCause::loss) = 0;
  }
  // Scan's rule (pcap/half_flow.cc): every wait inside a recovery is the loss's, whatever else held.
  std::int64_t more = loss_ns;
  for (const LimitCause from : {LimitCause::network, LimitCause::send_buffer, LimitCause::receiver_window,
                                LimitCause::delayed_ack}) {
    const std::int64_t take = std::clamp<std::int64_t>(more, 0, at(a.times, from));
    at(a.times, from) -= take;
    at(a.times, LimitCause::loss) += take;
    more -= take;
  }
  return std::max<std::int64_t>(more, 0);
}

void accumulate(Attribution& total, const Attribution& next) {
  if (next.role == Role::sender || total.role == Role::idle) total.role = next.role;
  total.interval_ns += next.interval_ns;
  for (std::size_t i = 0; i < core::kLimitCauseCount; ++i) total.times[i] += next.times[i];
  total.bytes_acked += next.bytes_acked;
  total.bytes_received += next.bytes_received;
  total.retransmitted += next.retransmitted;
  total.ack_hold_ns = std::max(total.ack_hold_ns, next.ack_hold_ns);
  total.chrono_missing = total.chrono_missing || next.chrono_missing;
}

Verdict judge(const Attribution& a, const Sample& now) {
  Verdict v;
  std::int64_t best = -1, worst = 0;
  for (const LimitCause c : core::kLimitCauses) {
    const std::int64_t ns = at(a.times, c);
    if (ns > best) {
      best = ns;
      v.dominant = c;
    }
    if (core::is_problem(c) && ns > worst) {
      worst = ns;
      v.problem = c;
    }
  }
  const double total = static_cast<double>(std::max<std::int64_t>(a.interval_ns, 1));
  v.problem_share = static_cast<double>(worst) / total;
  if (v.problem_share < kProblemShare) v.problem.reset();
  v.severity = !v.problem ? Severity::none : v.problem_share >= 0.25 ? Severity::major : Severity::minor;
  // The peer: the kernel shows its options, and (with the hold rule) its delayed-ACK timer.
  const TcpInfo& i = now.info;
  std::vector<std::string> fits;
  if (a.ack_hold_ns > 0) fits = core::delayed_ack_timer_fits(a.ack_hold_ns);
  v.peer = (i.options & kOptTimestamps) ? "sends TCP timestamps (Linux, BSD, macOS; Windows only if enabled)"
                                        : "no TCP timestamps (fits Windows: off by default there)";
  // The smoothed RTT averages held ACKs with prompt ones: a timer is named only when the hold
  // reaches 35 ms (Linux's 40 ms less a jiffy tick); below, the hold is a lower bound.
  if (a.ack_hold_ns >= 35'000'000 && !fits.empty()) {
    v.peer += "; ACK hold ~" + core::format_duration_ns(a.ack_hold_ns / 1'000'000 * 1'000'000) + " fits " + fits.front();
  } else if (a.ack_hold_ns > 0) {
    v.peer += "; ACKs held " + core::format_duration_ns(a.ack_hold_ns / 1'000'000 * 1'000'000) +
              " on average (smoothed RTT; --events times each hold)";
  }
  if (!v.problem) return v;
  const std::string mss = core::format_size(i.snd_mss);
  switch (*v.problem) {
    case LimitCause::receiver_window:
      v.fixes.push_back("the peer's application reads too slowly or its receive buffer is small: let it read "
                        "sooner, raise its SO_RCVBUF (or leave it unset to autotune; Linux: net.ipv4.tcp_rmem max)");
      if (i.snd_wscale == 0) v.fixes.push_back("the peer offers no window scaling (RFC 7323): its window stops at 64 KiB");
      break;
    case LimitCause::send_buffer:
      v.fixes.push_back(
          now.memory ? fmt::format("this socket's send buffer is {} bytes: leave SO_SNDBUF unset (Linux autotunes up "
                                   "to net.ipv4.tcp_wmem max) or raise it to the bandwidth-delay product",
                                   now.memory->sndbuf)
                     : std::string("leave SO_SNDBUF unset (Linux autotunes up to net.ipv4.tcp_wmem max) or raise it "
                                   "to the bandwidth-delay product"));
      break;
    case LimitCause::delayed_ack:
      if (i.notsent_bytes > 0)
        v.fixes.push_back("Nagle holds the rest of each write while one segment waits for its ACK: TCP_NODELAY on this "
                          "socket, or write whole messages at once");
      v.fixes.push_back("each write ends on a lone segment whose ACK the peer holds: write in larger pieces, a "
                        "multiple of 2 segments (" + mss + " each), or keep more than one write in flight");
      v.fixes.push_back((i.options & kOptTimestamps)
                            ? "on a Linux peer: TCP_QUICKACK after each read (it ACKs at once)"
                            : "on a Windows peer: TcpAckFrequency=1 for the interface (ACK every segment)");
      break;
    case LimitCause::loss:
      v.fixes.push_back("the path drops segments: find the drop (tc -s qdisc, ethtool -S, ip -s link); "
                        "a loss-tolerant congestion control (BBR: net.ipv4.tcp_congestion_control=bbr) or ECN helps");
      break;
    default: break;
  }
  return v;
}

}  // namespace ackstall::live
