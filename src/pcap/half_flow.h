// Internal: one direction of a TCP flow — the sender's segments and the receiver's ACKs for them
// — and the stall rules of stall_scanner.h applied to it.
//
// Sequence numbers are unwrapped to 64 bits near the highest sequence sent and made relative to
// the ISN + 1 (or to the first sequence number seen when the capture missed the SYN), like
// Wireshark's relative sequence numbers.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "ackstall/core/recent_spacings.h"
#include "ackstall/pcap/stall_scanner.h"
#include "held_ack.h"
#include "reply_link.h"
#include "upstream_loss.h"
#include "scale_fit.h"
#include "window_edge.h"

namespace ackstall::pcap::detail {

class HalfFlow {
 public:
  HalfFlow(SocketAddr sender, SocketAddr receiver, const ScanOptions& options);

  // A segment from the sender; from the receiver (its ACK field). ttl: as captured, 0 unknown.
  void on_sender(const TcpPacket& p, std::uint64_t frame, std::uint8_t ttl = 0);
  void on_receiver(const TcpPacket& p, std::uint64_t frame, std::uint8_t ttl = 0);

  bool carried_data() const noexcept { return report_.data_segments > 0; }
  DirectionReport report() const;

  // The reply link (reply_link.h): the runs of the accounts finished so far (the connection's
  // ReplyLink takes them), the time no run finished later starts before (`now`: the packet's), the runs with the
  // capture's end settled (as report() settles it), and the connection's count on these
  // addresses (it changes when a new connection reuses them).
  RunRecorder& runs() noexcept { return runs_; }
  std::int64_t link_horizon(std::int64_t now) const noexcept;
  RunRecorder final_runs() const;
  std::uint64_t generation() const noexcept { return report_.earlier_connections; }

 private:
  struct InFlight {
    std::int64_t end = 0;  // relative sequence number after the segment
    std::int64_t sent_ns = 0;
    std::uint64_t frame = 0;
    // Sent again already (retransmitted_segments counts each segment once), or not one of
    // data_segments (a FIN's sequence number): not counted when resent.
    bool resent = false;
  };
  // Marks the unACKed segments [start, end) covers as resent; how many were not already.
  std::uint64_t mark_resent(std::int64_t start, std::int64_t end);

  std::int64_t relative(std::uint32_t wire) const noexcept;
  bool window_scale_known() const noexcept;
  // Neither SYN captured (a capture started mid-stream): the window scale and the handshake's
  // round trip are unknown (DirectionReport::no_handshake).
  bool no_handshake() const noexcept { return !sender_syn_ && !receiver_syn_; }
  std::int64_t window_bytes(std::uint16_t raw) const noexcept;
  void record_stall(Stall s);
  void note_handshake(const TcpPacket& p, bool from_sender);
  void note_write(const TcpPacket& p, std::int64_t new_bytes, std::int64_t since_last_data);
  // The segment left one frame time after the previous data segment: queued behind it.
  bool paced_after_previous(std::int64_t since_last_data) const;

  std::int64_t threshold_ns_;
  std::function<void(const SocketAddr&, const SocketAddr&, const Stall&)> on_stall_;
  std::size_t keep_stalls_;
  bool spill_stalls_ = false;
  DirectionReport report_;
  bool have_base_ = false;
  std::int64_t base_ = 0;  // unwrapped sequence number of relative 0
  std::int64_t snd_una_ = 0, snd_max_ = 0, data_max_ = 0;
  std::deque<InFlight> flight_;
  bool any_tx_ = false;
  std::int64_t last_tx_ns_ = 0;
  std::uint32_t max_payload_ = 0;
  // The receiver's advertised window and the handshake's window scaling (RFC 7323 §2.2).
  bool have_window_ = false;
  std::uint16_t window_raw_ = 0;
  bool sender_syn_ = false, receiver_syn_ = false;
  std::optional<std::uint8_t> sender_wscale_, receiver_wscale_;
  std::optional<std::uint16_t> receiver_mss_;  // the MSS option of the receiver's SYN
  bool receiver_timestamps_ = false;           // its SYN carried the timestamps option
  std::vector<std::int64_t> delayed_ack_delays_;
  std::vector<std::int64_t> full_spacings_;  // consecutive full-size new-data segments' spacings
  core::RecentSpacings recent_spacings_;  // the last 8 of them
  std::uint64_t last_tx_frame_ = 0;
  // The current write (new data since the last PSH) and the handshake's times.
  std::uint64_t write_bytes_ = 0;
  std::uint32_t write_segments_ = 0;
  bool last_data_psh_ = true;
  std::optional<std::int64_t> syn_ns_, syn_ack_ns_;
  bool rtt_done_ = false, syn_from_sender_ = false;
  std::optional<std::int64_t> handshake_done_ns_;  // the handshake's last ACK
  bool last_data_full_ = false;
  std::int64_t last_data_ns_ = 0;
  // Idle time before new data sent with nothing in flight: a log histogram (4 buckets an
  // octave from 1 us), so memory stays flat however long the capture.
  static constexpr std::size_t kIdleBuckets = 112;
  std::array<std::uint32_t, kIdleBuckets> idle_hist_{};
  std::int64_t last_ack_ns_ = 0;
  void note_idle(std::int64_t ns);
  std::optional<std::int64_t> idle_median_ns() const;

  // Time accounts (core/limit_cause.h). acct_ns_: the time accounted up to. Waits with payload in
  // flight are committed at the event that ends them; idle time (nothing in flight) waits in
  // pending_ until more data follows. flight_ns_: prompt waits for ACKs, split into send_buffer
  // and network by the in-flight plateau when the report is made.
  std::int64_t in_flight() const noexcept { return data_max_ > snd_una_ ? data_max_ - snd_una_ : 0; }
  std::int64_t floor_ns() const noexcept { return report_.rtt_floor_ns.value_or(0); }
  // The path's round trip as far as it is known: the larger of the floor and the handshake's.
  std::int64_t path_rtt_ns() const noexcept { return std::max(floor_ns(), report_.handshake_rtt_ns.value_or(0)); }
  // The capture point's distance from the sender, there and back: the handshake's round trip less
  // the data-to-ACK floor (~0 at the sender, the whole round trip beside the receiver); unknown
  // without the handshake, or with a floor above it (every ACK in the floor was held).
  std::optional<std::int64_t> sender_side_ns() const noexcept;
  void account(core::LimitCause c, std::int64_t ns);
  void account_until(std::int64_t now, core::LimitCause c);
  void commit_pending();
  // The timeline (ScanOptions::cause_timeline): spans in time order; kFlight stands for the
  // prompt waits whose cause report() decides.
  static constexpr std::uint8_t kFlight = core::kLimitCauseCount;
  struct Span {
    std::int64_t start, end;
    std::uint8_t cause;
  };
  bool timeline_on_ = false;
  std::size_t max_spans_ = 0;
  std::vector<Span> timeline_, pending_spans_;
  void span(std::uint8_t cause, std::int64_t start, std::int64_t end) {
    if (end <= start) return;
    runs_.note(cause, start, end);
    if (timeline_on_) timeline_span(cause, start, end);
  }
  void timeline_span(std::uint8_t cause, std::int64_t start, std::int64_t end);
  void pend_span(std::uint8_t cause, std::int64_t start, std::int64_t end);  // a pending span
  // The pending idle IDLE (the application's so far) goes to C, in the accounts and the pending
  // timeline's spans; IDLE becomes 0.
  void pending_idle_to(core::LimitCause c, std::int64_t& idle);
  RunRecorder runs_;
  void flight_until(std::int64_t now);
  bool acct_started_ = false;
  std::int64_t acct_ns_ = 0;
  // A capture that begins mid-stream: the receiver's ACKs before the first captured data
  // segment. A zero window among them is counted from its first ACK: as receiver_window while
  // it stays zero, then as network (the update reaching the sender, its data coming back);
  // without one the accounts start at the first data as for any flow (earlier time is the
  // peer's or the capture's, which nothing here tells apart).
  struct Prologue {
    bool seen = false;
    std::uint32_t first_ack = 0, last_ack = 0;
    std::int64_t first_ns = 0;
    std::int64_t zero_since = -1;  // an open zero window, or -1
    std::vector<std::pair<std::int64_t, std::int64_t>> zeros;  // closed zero windows
    std::uint64_t zero_acks = 0;
    std::uint16_t max_window = 0;  // raw
  };
  Prologue prologue_;
  void note_prologue(const TcpPacket& p);
  void account_prologue(std::int64_t first_data_ns);
  core::CauseTimes pending_{};
  std::array<std::uint64_t, core::kLimitCauseCount> pending_events_{};
  std::int64_t flight_ns_ = 0;
  std::uint64_t flight_events_ = 0;
  bool last_event_sender_ = false;
  std::int64_t idle_since_ = 0;  // when the last ACK left nothing in flight
  bool data_window_seen_ = false;  // a window from a segment other than a SYN
  bool idle_after_peer_data_ = false;  // that ACK carried the peer's data (a request)
  // The prompt waits since the sender's last segment, back to back, the last ended by an ACK of
  // everything sent (undo_turn): a write's or a request's round trip, ACKed in one or more steps.
  struct TurnWaits {
    std::int64_t start = 0, end = 0;
    std::array<std::uint16_t, 4> buckets{};  // their flight_hist_ buckets
    std::uint8_t n = 0;
    bool emptied = false;
    bool untold = false;  // more than 4 waits, or time between them not the flight's
  };
  TurnWaits turn_;
  void undo_turn();
  std::int64_t last_stall_end_ = 0;  // the last accounted event was the sender's segment
  // Flight sizes at prompt waits: a log histogram (8 buckets an octave from 1 byte).
  static constexpr std::size_t kFlightBuckets = 8 * 40;
  std::array<std::uint32_t, kFlightBuckets> flight_hist_{};
  std::uint64_t flight_quantile(double q) const;
  // New data per handshake round trip (a log histogram as flight_hist_): at a capture beside the
  // receiver the flight at an ACK is only what crossed the last hop, and the bytes that arrive
  // in one round trip are the sender's flight (Little's law).
  std::array<std::uint32_t, kFlightBuckets> round_hist_{};
  // Round trips shorter than this (a LAN) are too short to tell where the capture was taken.
  static constexpr std::int64_t kFarRttNs = 1'000'000;
  std::uint64_t rounds_ = 0;
  std::int64_t round_start_ = 0, round_bytes_ = 0;
  void note_round(std::int64_t now, std::int64_t new_bytes);
  std::uint64_t round_quantile(double q) const;
  // Loss recovery: from a retransmission until the data sent before it is ACKed (RFC 6675's
  // RecoveryPoint).
  bool in_recovery_ = false;
  std::int64_t recover_ = 0;
  // The last recovery's retransmissions, to retract what a D-SACK (RFC 2883) shows spurious: each
  // resend the receiver reports as received twice is counted apart (spurious_resends) and taken
  // out of retransmissions and retransmitted_segments; once every resend of the recovery is, the
  // recovery itself was spurious (Linux's undo_retrans, tcp_try_undo_dsack): its loss event is
  // taken back and the time it accounted as loss goes back to the flight's waits.
  struct Resend {
    std::int64_t start = 0, end = 0;
    std::uint64_t segments = 0;  // what it added to retransmitted_segments
    bool dsacked = false;
  };
  struct Recovery {
    bool valid = false, undone = false;
    bool untold = false;  // more resends than kept: never undone
    std::int64_t loss_ns = 0;  // cause_ns[loss] when it began
    std::size_t timeline_size = 0;
    std::uint8_t n = 0, dsacked = 0;
    std::array<Resend, 8> resends{};
  };
  Recovery recovery_;
  void note_dsack(const TcpPacket& p);
  // Sequence holes (new data beyond the highest seen), start -> end; bounded.
  std::map<std::int64_t, std::int64_t> holes_;
  // The handshake's sender -> receiver -> sender time at the capture point.
  std::optional<std::int64_t> hs_sender_ns_;
  bool hs_floor_done_ = false;
  void note_floor(std::int64_t ns);
  // Nagle (RFC 896) after a wait: a sub-MSS segment sent as soon as an ACK, held by the receiver,
  // left nothing in flight.
  std::optional<std::int64_t> held_release_ns_;
  std::uint32_t full_segment() const noexcept;
  // A delayed-ACK wait counts once the sender's next segment shows the ACK released it (held_ack.h).
  HeldAck held_ack_;
  void settle_held(std::int64_t now);
  // Where a released held wait's spans end: the floor's (the flight's), then the timer's.
  std::pair<std::int64_t, std::int64_t> held_spans(const HeldAck::Wait& w) const noexcept {
    return {acct_ns_ + w.path_ns, w.stall.end_ns};
  }
  void note_nagle_after_release(const TcpPacket& p, std::int64_t now);
  // A hole filled later is a loss upstream (upstream_loss.h): the accounts when the first open
  // hole opened.
  std::optional<HoleMark> hole_mark_;
  void mark_hole(std::int64_t now);
  void loss_since_hole();
  // Bursts that reach the offered window's right edge (window_edge.h).
  WindowEdge edge_;
  // Mid-stream: the window's unknown scale fitted to where the sender stops (scale_fit.h).
  ScaleFit scale_fit_;
  std::int64_t sender_lag_ns() const noexcept;
  std::int64_t ack_to_sender_ns() const noexcept;
};

}  // namespace ackstall::pcap::detail
