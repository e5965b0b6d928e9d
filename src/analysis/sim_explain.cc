#include "ackstall/analysis/sim_explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/link_framing.h"
#include "ackstall/core/plural.h"
#include "ackstall/core/units.h"
#include "ackstall/pcap/mechanism.h"

namespace ackstall::analysis {
namespace {

using sim::StallKind;

std::string bytes(std::int64_t n) { return fmt::format("{}-byte", n); }

// The receiver's ACK rule as the mechanism names it (docs/STACKS.md §1, §3, §4, §6).
void receiver_of(const sim::TcpProfile& rx, pcap::LoneSegmentHold& m) {
  m.hold = std::chrono::nanoseconds(rx.ack.delack_timeout.count());
  m.acks_every = 2;
  switch (rx.ack.kind) {
    case sim::AckPolicyKind::openbsd: m.receiver = "BSD"; break;
    case sim::AckPolicyKind::bsd_tick: m.receiver = "old BSD, a global delayed-ACK tick"; break;
    case sim::AckPolicyKind::freebsd: m.receiver = "FreeBSD"; break;
    case sim::AckPolicyKind::windows:
      m.receiver = "Windows";
      m.acks_every = static_cast<std::uint32_t>(rx.ack.ack_frequency);
      break;
    case sim::AckPolicyKind::ns3:
      m.receiver = "ns-3";
      m.acks_every = static_cast<std::uint32_t>(rx.ack.ack_frequency);
      break;
    default:  // Linux: the ATO, from its minimum up
      m.receiver = "Linux";
      m.acks_every = 0;
      m.hold = std::chrono::nanoseconds(rx.ack.ato_min.count());
      m.hold_minimum = true;
  }
}

}  // namespace

// The kind that explains TOTALS: causes (a delayed ACK, a Nagle hold, the pipe thread's sleep,
// a late wake-up) before the quota wait they lead to, unless the quota wait is more than twice
// as long. nullopt when TOTALS is empty.
static std::optional<StallKind> dominant(const sim::StallTotals& totals) {
  double max = 0;
  for (StallKind k : sim::kStallKinds) max = std::max(max, totals.of(k)->time.seconds());
  if (max == 0) return std::nullopt;
  for (StallKind k : {StallKind::delayed_ack, StallKind::nagle_hold, StallKind::select_teardown, StallKind::wakeup,
                      StallKind::quota_wait})
    if (totals.of(k)->time.seconds() >= max / 2) return k;
  return std::nullopt;
}

static std::string mechanism(const sim::ExperimentConfig& cfg, const sim::Summary& s, StallKind worst,
                             const sim::StallTotal& total);

std::string explain(const sim::ExperimentConfig& cfg, const sim::Summary& s) {
  const double share = s.ceiling_mib_s > 0 ? s.goodput_mib_s / s.ceiling_mib_s : 0;
  const std::string threshold = core::format_duration_ns(cfg.stall_threshold.count());
  if (const auto worst = dominant(s.stalls)) return mechanism(cfg, s, *worst, *s.stalls.of(*worst));
  if (share >= 0.9)
    return fmt::format("no stall above {}: the link is the limit ({:.0f} % of its ceiling)", threshold, 100 * share);
  const auto wait = dominant(s.short_waits);
  if (!wait) return fmt::format("no stall and no wait, at {:.0f} % of the link's ceiling", 100 * share);
  std::string why = mechanism(cfg, s, *wait, *s.short_waits.of(*wait));
  if (why.starts_with("The ")) why[0] = 't';  // pcap::word's sentence, after a colon
  return fmt::format("no stall above {}, {:.0f} % of the link's ceiling, lost to short waits: {}", threshold,
                     100 * share, why);
}

static std::string mechanism(const sim::ExperimentConfig& cfg, const sim::Summary& s, StallKind worst,
                             const sim::StallTotal& total) {
  const double worst_s = total.time.seconds();
  const auto& tx = cfg.app.transmitter;
  const std::int64_t sndbuf = s.sndbuf > 0 ? s.sndbuf : cfg.sender.send_buffer.size;  // after a raise
  const std::string when = fmt::format("{}, {:.3f} s in all", core::plural(total.count, "wait"), worst_s);
  // How one send leaves the application: the policy's last piece and its segment count.
  const std::int64_t mss = s.mss > 0 ? s.mss : core::mss_for_mtu(cfg.link.mtu);
  // The policy as the run's sender held it (its SO_SNDBUF after any raise, its MSS guess, the
  // peer's window): the pieces explained are the ones that were sent.
  const core::ChunkPolicy policy(tx.chunking, s.chunk_params);
  const auto pieces = policy.plan(static_cast<std::size_t>(std::min<std::int64_t>(tx.write_len, 1 << 24)));
  const std::int64_t last = pieces.empty() ? tx.write_len : static_cast<std::int64_t>(pieces.back());
  const std::int64_t segs = (last + mss - 1) / mss;
  const std::int64_t tail = last % mss;
  const bool afd = cfg.sender.send_buffer.kind == sim::SendBufferKind::afd;
  switch (worst) {
    case StallKind::delayed_ack:
    case StallKind::nagle_hold: {  // the same mechanism, worded once (pcap/mechanism.h)
      pcap::LoneSegmentHold m;
      m.quota_per_send = afd && tx.write_len >= sndbuf;
      // The bound on what is in flight while a hold waits, from the config: the send buffer, and
      // no more than one write (a 300-byte request holds no 64 KiB flight).
      m.in_flight_limit = static_cast<std::uint64_t>(std::min(sndbuf, tx.write_len));
      m.write_size = static_cast<std::uint64_t>(tx.write_len);
      m.segments = static_cast<std::uint32_t>(segs);
      if (pieces.size() > 1) {
        m.cut_by = std::string(core::to_string(tx.chunking));
        m.pieces = pieces.size();
      }
      // An odd count leaves the last segment alone; an even one with a sub-MSS tail leaves the one
      // before the tail Nagle holds.
      if (segs % 2 == 0 && tail > 0 && cfg.sender.nagle != sim::NagleKind::off) {
        m.nagle = std::string(sim::to_string(cfg.sender.nagle));
        m.nagle_tail = static_cast<std::uint64_t>(tail);
      }
      m.lone = segs % 2 == 1 || !m.nagle.empty();
      receiver_of(cfg.receiver, m);
      m.holds = total.count;
      m.held = std::chrono::nanoseconds(std::llround(worst_s * 1e9));
      return pcap::word(m);
    }
    case StallKind::quota_wait:
      return fmt::format("the sender waits for its per-send quota: each {} send is charged whole against "
                         "SO_SNDBUF {} and released only when its last byte is ACKed ({})",
                         bytes(tx.write_len), sndbuf, when);
    case StallKind::wakeup:
      return fmt::format("the sender wakes {} after FD_WRITE and the link idles meanwhile ({})",
                         tx.wakeup.to_string(), when);
    case StallKind::select_teardown:
      // A random quantum is named by its mean (sim::Delay::mean), with its text.
      return fmt::format("scp's select() pipe thread ends only at its next {} poll (Sleep, not an event) ({})",
                         cfg.app.scp.sleep_quantum.fixed()
                             ? cfg.app.scp.sleep_quantum.to_string()
                             : fmt::format("{} (mean of {})",
                                           core::format_duration_ns(cfg.app.scp.sleep_quantum.mean().count()),
                                           cfg.app.scp.sleep_quantum.to_string()),
                         when);
    default: return {};  // a kind only the scanner finds (core::StallObserver)
  }
}

}  // namespace ackstall::analysis
