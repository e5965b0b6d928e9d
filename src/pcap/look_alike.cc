#include "ackstall/pcap/look_alike.h"

#include <algorithm>

#include "ackstall/pcap/capture_artefacts.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

std::optional<std::string> quota_or_nagle(const DirectionReport& d, const Diagnosis& g) {
  if (g.problem != core::LimitCause::delayed_ack || d.nagle_holds == 0 || offloaded_segments(d)) return std::nullopt;
  // Nagle alone: under a full segment in flight before the held tail (a request in two small
  // pieces); a quota holds a segment or more.
  if (g.mss == 0 || g.in_flight_limit < g.mss) return std::nullopt;
  return std::string(
      "A per-send quota (Winsock's SO_SNDBUF per send) and Nagle (RFC 896) look alike here: both hold a write's "
      "short tail until the ACK that the receiver delays. To tell them apart, rerun with TCP_NODELAY on the sender "
      "(Nagle's stalls go, a quota's stay), run `ackstall probe --ack-test` against the receiver, or watch "
      "`ss -tin` on the sender (Linux: unacked and notsent bytes while it waits).");
}

void report_quota_or_nagle(const DirectionReport& d, Diagnosis& g) {
  const auto said = quota_or_nagle(d, g);
  if (!said) return;
  g.mechanism += " " + *said;
  const auto nagle = std::ranges::find_if(g.fixes, [](const std::string& f) {
    return f.starts_with("sender: disable Nagle (TCP_NODELAY)");
  });
  if (nagle == g.fixes.end()) return;
  std::string fix = "sender, if the rerun with TCP_NODELAY shows no stall (Nagle, not a quota): keep TCP_NODELAY" +
                    nagle->substr(std::string("sender: disable Nagle (TCP_NODELAY)").size());
  g.fixes.erase(nagle);
  g.fixes.push_back(std::move(fix));
}

}  // namespace ackstall::pcap
