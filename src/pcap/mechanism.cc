#include "ackstall/pcap/mechanism.h"

#include <fmt/format.h>

#include "ackstall/core/plural.h"

namespace ackstall::pcap {
namespace {

// "42.000 ms" below 10 ms' worth of digits, "200.0 ms" above (as the diagnosis words times).
std::string ms(std::chrono::nanoseconds ns) {
  const double v = static_cast<double>(ns.count()) / 1e6;
  return v < 10 ? fmt::format("{:.3f} ms", v) : fmt::format("{:.1f} ms", v);
}

std::string segments_word(std::uint64_t n) { return n == 1 ? "segment" : "segments"; }

}  // namespace

std::string word(const LoneSegmentHold& m) {
  // What one send is: its size, its cut, its segments, and which one Nagle leaves alone.
  std::string send;
  if (m.write_size) {
    const std::uint32_t n = m.segments.value_or(0);
    send = fmt::format("each {}-byte write{} in {} {}", *m.write_size,
                       m.cut_by.empty() ? "" : fmt::format(", cut by the {} policy into {} pieces, the last", m.cut_by, m.pieces),
                       n, segments_word(n));
    if (!m.nagle.empty() && n >= 2) {
      send += fmt::format("; Nagle ({}) holds the {}-byte tail until {} before it {} ACKed, which leaves segment {} alone",
                          m.nagle, m.nagle_tail, n - 1 == 1 ? std::string("the one") : fmt::format("the {}", n - 1),
                          n - 1 == 1 ? "is" : "are", n - 1);
    }
  }
  if (m.quota_per_send) send += std::string(send.empty() ? "" : "; ") + "SO_SNDBUF charged per whole send";
  std::string receiver = m.receiver;
  if (m.acks_every > 0) {
    receiver += std::string(receiver.empty() ? "" : ", ") + "ACKs " +
                (m.acks_every == 1   ? std::string("every segment")
                 : m.acks_every == 2 ? std::string("every second segment")
                                     : fmt::format("every {} segments", m.acks_every));
  }
  const bool nagle_alone = !m.nagle.empty() && m.segments.value_or(0) >= 2;
  const std::string count =
      m.waits ? fmt::format("{} of {} waits are that hold", m.holds, *m.waits)
              : fmt::format("{}, {:.3f} s in all", core::plural(m.holds, "wait"),
                            std::chrono::duration<double>(m.held.value_or(std::chrono::nanoseconds{0})).count());
  return fmt::format("The sender stops with at most {} bytes in flight{} and the receiver{} holds the ACK of the {}{} "
                     "for its delayed-ACK timer (~{}{}): {}.",
                     m.in_flight_limit, send.empty() ? "" : " (" + send + ")",
                     receiver.empty() ? "" : " (" + receiver + ")", m.lone ? "lone " : "",
                     nagle_alone ? "segment" : "last segment", ms(m.hold), m.hold_minimum ? " and up" : "", count);
}

}  // namespace ackstall::pcap
