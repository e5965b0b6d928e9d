// ackstall/core/stall_kind.h — one closed vocabulary of stalls: every kind of wait the simulator
// marks (sim/trace.h's StallMarker) or the capture scanner finds (pcap/stall_scanner.h's Stall),
// in one table with its key, its report label, what it is, which of the two can see it, and the
// core::LimitCause its time counts toward. The shape of Wireshark's packet-tcp.c expert flags: one
// closed set, one user-visible name and one description each.
//
// A new stall kind: one enumerator and one row of kStallKindTable (in enum order; checked below
// and by tests/core/vocabulary_test.cc). Counts, per-observer lists and names come from the table.
// Enumerators are only ever appended within each observer's order: the scanner's counts and the
// simulator's report columns list their kinds in table order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ackstall/core/closed_table.h"
#include "ackstall/core/limit_cause.h"

namespace ackstall::core {

enum class StallKind : std::uint8_t {
  delayed_ack,
  nagle_hold,
  quota_wait,
  wakeup,
  select_teardown,
  zero_window,
  window_update,
  window_limited,
  slow_ack,
  retransmission,
  reply,
};

// Which side can report a kind: the simulator (it knows its own timers and threads) and/or the
// capture scanner (it sees only the packets).
enum class StallObserver : std::uint8_t { simulator = 1, scanner = 2, both = 3 };

struct StallKindRow {
  StallKind kind;
  std::string_view key;          // JSON, CSV and scan's text: "delayed_ack"
  std::string_view label;        // the simulator's reports and plots: "delayed-ack"
  std::string_view description;  // what the wait is, from its begin to its end
  LimitCause cause;              // the cause its time counts toward
  StallObserver seen_by;
};

inline constexpr StallKindRow kStallKindTable[] = {
    {StallKind::delayed_ack, "delayed_ack", "delayed-ack",
     "a lone segment's ACK held for the receiver's delayed-ACK timer (RFC 1122 4.2.3.2: at most 0.5 s)",
     LimitCause::delayed_ack, StallObserver::both},
    {StallKind::nagle_hold, "nagle_hold", "nagle-hold",
     "the sender had a short segment ready and Nagle held it until the data in flight was ACKed (RFC 896)",
     LimitCause::delayed_ack, StallObserver::simulator},
    {StallKind::quota_wait, "quota_wait", "quota-wait",
     "the application blocked by the send-buffer accounting (WOULDBLOCK -> FD_WRITE)", LimitCause::send_buffer,
     StallObserver::simulator},
    {StallKind::wakeup, "wakeup", "wakeup", "FD_WRITE or a send completion -> the transmitting thread runs again",
     LimitCause::sender_app, StallObserver::simulator},
    {StallKind::select_teardown, "select_teardown", "select-teardown",
     "scp: the socket readable -> select() returned", LimitCause::sender_app, StallObserver::simulator},
    {StallKind::zero_window, "zero_window", "zero-window", "the receiver's last window before the stall was 0",
     LimitCause::receiver_window, StallObserver::scanner},
    {StallKind::window_update, "window_update", "window-update",
     "the releasing ACK acknowledges nothing new, only opens the window", LimitCause::receiver_window,
     StallObserver::scanner},
    {StallKind::window_limited, "window_limited", "window-limited",
     "the sender had filled the receiver's advertised window", LimitCause::receiver_window, StallObserver::scanner},
    {StallKind::slow_ack, "slow_ack", "slow-ack",
     "several segments ACKed late, or one held past 0.5 s (a busy receiver, a queue, lost ACKs)",
     LimitCause::network, StallObserver::scanner},
    {StallKind::retransmission, "retransmission", "retransmission",
     "the sender retransmitted: a timeout, not the receiver's doing", LimitCause::loss, StallObserver::scanner},
    {StallKind::reply, "reply", "reply",
     "the releasing ACK carried the peer's data: a request answered (think time), not a timer",
     LimitCause::peer_reply, StallObserver::scanner},
};

inline constexpr std::size_t kStallKindCount = std::size(kStallKindTable);

static_assert(in_enum_order(kStallKindTable, &StallKindRow::kind), "kStallKindTable: one row per StallKind, in enum order");

constexpr const StallKindRow& row_of(StallKind k) noexcept { return kStallKindTable[static_cast<std::size_t>(k)]; }
constexpr bool seen_by(StallKind k, StallObserver o) noexcept {
  return (static_cast<unsigned>(row_of(k).seen_by) & static_cast<unsigned>(o)) != 0;
}

// The kinds one observer reports, in table order (sizes from the table).
template <StallObserver O>
inline constexpr auto kStallKindsSeenBy = [] {
  constexpr std::size_t n = [] {
    std::size_t c = 0;
    for (const auto& r : kStallKindTable) c += seen_by(r.kind, O) ? 1 : 0;
    return c;
  }();
  std::array<StallKind, n> out{};
  std::size_t i = 0;
  for (const auto& r : kStallKindTable)
    if (seen_by(r.kind, O)) out[i++] = r.kind;
  return out;
}();
inline constexpr const auto& kSimulatorStallKinds = kStallKindsSeenBy<StallObserver::simulator>;
inline constexpr const auto& kScannerStallKinds = kStallKindsSeenBy<StallObserver::scanner>;

// "delayed_ack": the key (JSON, CSV, scan's text).
constexpr std::string_view to_string(StallKind k) noexcept { return row_of(k).key; }
// "delayed-ack": the simulator's report label.
constexpr std::string_view label_of(StallKind k) noexcept { return row_of(k).label; }
constexpr std::string_view describe(StallKind k) noexcept { return row_of(k).description; }
// The cause a stall's time counts toward.
constexpr LimitCause cause_of(StallKind k) noexcept { return row_of(k).cause; }
// The kind whose key or label is `name`, if any.
constexpr std::optional<StallKind> parse_stall_kind(std::string_view name) noexcept {
  for (const auto& r : kStallKindTable)
    if (r.key == name || r.label == name) return r.kind;
  return std::nullopt;
}

}  // namespace ackstall::core
