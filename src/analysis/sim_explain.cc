#include "ackstall/analysis/sim_explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/link_framing.h"
#include "ackstall/core/plural.h"
#include "ackstall/core/units.h"

namespace ackstall::analysis {
namespace {

using sim::StallKind;

std::string bytes(std::int64_t n) { return fmt::format("{}-byte", n); }

// "every segment", "every 2 segments".
std::string every_segments(std::int64_t n) { return n == 1 ? "every segment" : "every " + core::plural(n, "segment"); }

std::string ack_rule(const sim::TcpProfile& rx) {
  const std::string timer = core::format_duration_ns(rx.ack.delack_timeout.count());
  switch (rx.ack.kind) {
    case sim::AckPolicyKind::openbsd: return "the receiver (BSD) ACKs every second segment and delays a lone one's ACK up to " + timer;
    case sim::AckPolicyKind::bsd_tick: return "the receiver (old BSD) holds a lone segment's ACK until its global delayed-ACK tick";
    case sim::AckPolicyKind::freebsd: return "the receiver (FreeBSD) ACKs every second segment and delays a lone one's ACK up to " + timer;
    case sim::AckPolicyKind::windows:
      return fmt::format("the receiver (Windows) ACKs {} and delays a lone one's ACK up to {}",
                         every_segments(rx.ack.ack_frequency), timer);
    case sim::AckPolicyKind::ns3:
      return fmt::format("the receiver (ns-3) ACKs {} and delays a lone one's ACK up to {}",
                         every_segments(rx.ack.ack_frequency), timer);
    default:
      return "the receiver (Linux) delays the ACK of a lone segment by its ATO (" +
             core::format_duration_ns(rx.ack.ato_min.count()) + " and up)";
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
  return fmt::format("no stall above {}, {:.0f} % of the link's ceiling, lost to short waits: {}", threshold,
                     100 * share, mechanism(cfg, s, *wait, *s.short_waits.of(*wait)));
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
  const std::string cut = pieces.size() > 1 ? fmt::format(" (cut by the {} policy into {} pieces)",
                                                          core::to_string(tx.chunking), pieces.size())
                                            : "";
  switch (worst) {
    case StallKind::delayed_ack: {
      std::string lone;
      if (segs % 2 == 1)
        lone = fmt::format(" ends in {} of up to {} bytes, so its last segment is alone", core::plural(segs, "segment"),
                           mss);
      else if (tail > 0 && cfg.sender.nagle != sim::NagleKind::off)
        lone = fmt::format(" is {}; Nagle ({}) holds the {}-byte tail until {} before it {} ACKed, "
                           "which leaves segment {} alone",
                           core::plural(segs, "segment"), sim::to_string(cfg.sender.nagle), tail,
                           segs - 1 == 1 ? "the one" : fmt::format("the {}", segs - 1), segs - 1 == 1 ? "is" : "are",
                           segs - 1);
      else
        lone = fmt::format(" is {} of up to {} bytes", core::plural(segs, "segment"), mss);
      return fmt::format("each {} send{}{}; {}; {} ({})", bytes(tx.write_len), cut, lone, ack_rule(cfg.receiver),
                         afd && tx.write_len >= sndbuf
                             ? fmt::format("with SO_SNDBUF {} charged per whole send, the sender cannot send on "
                                           "until that ACK",
                                           sndbuf)
                             : std::string("the sender waits for that ACK"),
                         when);
    }
    case StallKind::nagle_hold:
      return fmt::format("Nagle ({}) holds the {}-byte tail of each {} send until everything before it is ACKed, "
                         "and {} ({})",
                         sim::to_string(cfg.sender.nagle), tail > 0 ? tail : mss, bytes(tx.write_len),
                         ack_rule(cfg.receiver), when);
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
