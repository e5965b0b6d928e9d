#include "half_flow.h"

#include "ackstall/core/link_framing.h"
#include "ackstall/core/log_bucket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ackstall::pcap::detail {

HalfFlow::HalfFlow(SocketAddr sender, SocketAddr receiver, const ScanOptions& options)
    : threshold_ns_(options.threshold.count()), on_stall_(options.on_stall), keep_stalls_(options.keep_stalls), spill_stalls_(options.spill_stalls),
      timeline_on_(options.cause_timeline), max_spans_(options.max_timeline_spans), runs_(options.threshold.count()) {
  report_.sender = sender;
  report_.receiver = receiver;
}

std::int64_t HalfFlow::relative(std::uint32_t wire) const noexcept {
  const std::int64_t ref = base_ + snd_max_;
  const auto delta = static_cast<std::int32_t>(wire - static_cast<std::uint32_t>(ref));
  return ref + delta - base_;
}

bool HalfFlow::window_scale_known() const noexcept { return sender_syn_ && receiver_syn_; }

std::int64_t HalfFlow::window_bytes(std::uint16_t raw) const noexcept {
  // Scaling is in effect only if both SYNs carried the option (RFC 7323 §2.2).
  const int shift = (sender_wscale_ && receiver_wscale_) ? std::min<int>(*receiver_wscale_, 14) : 0;
  return std::int64_t{raw} << shift;
}

namespace {

std::int64_t median_of(std::vector<std::int64_t> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

void HalfFlow::record_stall(Stall s) {
  // A wait that began before the first data (the handshake), or before the previous stall's end
  // (several releases while the sender sent nothing: a window reopening in steps), counts from
  // the later of those on: stalls never overlap.
  const std::int64_t from = std::max({s.start_ns, report_.first_data_ns, last_stall_end_});
  // What is left of a wait cut so is a stall of its own only if it still exceeds the threshold
  // (else it was part of the one before: a second ACK during the same wait).
  if (s.end_ns <= from || (from > s.start_ns && s.end_ns - from < threshold_ns_)) return;
  s.start_ns = from;
  last_stall_end_ = s.end_ns;
  // The delayed-ACK timer is the median hold (the ACK's delay less the path's floor, and no more
  // than the sender's wait less it) of the first 131,072 waits (1 MiB; flat beyond).
  if (s.kind == StallKind::delayed_ack && delayed_ack_delays_.size() < (std::size_t{1} << 17)) {
    const std::int64_t hold = std::min(s.ack_delay_ns, s.end_ns - s.start_ns) - floor_ns();
    delayed_ack_delays_.push_back(std::max<std::int64_t>(hold, 0));
  }
  report_.stall_counts[static_cast<std::size_t>(s.kind)]++;
  report_.stalled_ns += s.duration_ns();
  report_.stall_count++;
  report_.max_outstanding_at_stall = std::max(report_.max_outstanding_at_stall, s.outstanding);
  if (report_.stalls.size() < keep_stalls_) {
    report_.stalls.push_back(s);
  } else if (spill_stalls_) {
    if (!report_.spilled) report_.spilled = StallSpill::create();
    if (!report_.spilled) {
      keep_stalls_ = std::numeric_limits<std::size_t>::max();  // no temporary file: keep them in memory
      report_.stalls.push_back(s);
    } else {
      report_.spilled->append(s);
    }
  }
  if (on_stall_) on_stall_(report_.sender, report_.receiver, s);
}

void HalfFlow::note_handshake(const TcpPacket& p, bool from_sender) {
  // The handshake's round trip as seen at the capture point: SYN to the ACK of the SYN/ACK (the
  // capture's position between the hosts cancels out, as tcptrace's and Wireshark's initial RTT).
  if (rtt_done_) return;
  if (p.has(tcp_flag::syn) && !p.has(tcp_flag::ack)) {
    syn_ns_ = p.time_ns;
    syn_from_sender_ = from_sender;
  } else if (p.has(tcp_flag::syn)) {
    syn_ack_ns_ = p.time_ns;
  } else if (p.has(tcp_flag::ack) && syn_ns_ && syn_ack_ns_ && from_sender == syn_from_sender_) {
    report_.handshake_rtt_ns = p.time_ns - *syn_ns_;
    handshake_done_ns_ = p.time_ns;
    rtt_done_ = true;
  }
}

void HalfFlow::on_sender(const TcpPacket& p, std::uint64_t frame, std::uint8_t ttl) {
  if (p.has(tcp_flag::syn) && have_base_ && static_cast<std::uint32_t>(p.seq + 1) != static_cast<std::uint32_t>(base_)) {
    // A SYN with another initial sequence number on the same addresses and ports: a new
    // connection reusing them (RFC 9293 §3.4.1). Its report starts afresh, as Wireshark's
    // "port numbers reused" starts a new conversation; the count of earlier ones is kept.
    ScanOptions o;
    o.threshold = core::StallThreshold(threshold_ns_);
    o.keep_stalls = keep_stalls_;
    o.spill_stalls = spill_stalls_;
    o.cause_timeline = timeline_on_;
    o.max_timeline_spans = max_spans_;
    o.on_stall = on_stall_;
    const std::uint64_t earlier = report_.earlier_connections + 1;
    *this = HalfFlow(report_.sender, report_.receiver, o);
    report_.earlier_connections = earlier;
  }
  note_handshake(p, true);
  if (ttl != 0 && report_.sender_ttl == 0) report_.sender_ttl = ttl;
  const bool syn = p.has(tcp_flag::syn);
  if (syn) {
    sender_syn_ = true;
    sender_wscale_ = p.options.wscale;
    report_.mss = p.options.mss;
    report_.timestamps = p.options.timestamps.has_value();
    hs_sender_ns_ = p.time_ns;  // its SYN or SYN/ACK: the receiver's answer closes the floor
  } else if (p.options.timestamps && !report_.timestamps) {
    // Timestamps on a later segment mean both SYNs offered them (RFC 7323 §3.2): a SYN whose
    // options the snaplen cut (IPv6 with 88 bytes a packet) had hidden them.
    report_.timestamps = true;
    receiver_timestamps_ = true;
  }
  const std::int64_t seg_len =
      std::int64_t{p.payload_len} + (syn ? 1 : 0) + (p.has(tcp_flag::fin) ? 1 : 0);
  if (!have_base_) {
    if (seg_len == 0) return;
    have_base_ = true;
    base_ = std::int64_t{p.seq} + (syn ? 1 : 0);
  }
  if (seg_len == 0 || p.has(tcp_flag::rst)) return;  // a pure ACK for the other direction

  const std::int64_t now = p.time_ns;
  settle_held(now);
  const std::int64_t start = relative(p.seq);
  const std::int64_t end = start + seg_len;
  const std::int64_t data_start = start + (syn ? 1 : 0);
  const std::int64_t data_end = data_start + p.payload_len;
  const bool new_data = p.payload_len > 0 && data_end > data_max_;
  const bool retransmission = start < snd_max_ && !new_data && (p.payload_len > 0 || p.has(tcp_flag::fin));
  if (retransmission && p.payload_len > 0 && !in_recovery_) {
    // A recovery begins: what it accounts as loss from here on is retracted if a D-SACK shows all
    // its resends spurious (note_dsack).
    recovery_ = {.valid = true, .loss_ns = report_.cause_ns[static_cast<std::size_t>(core::LimitCause::loss)],
                 .timeline_size = timeline_.size()};
  }
  if (any_tx_ && report_.data_segments > 0 && in_flight() > 0 && now - last_tx_ns_ >= threshold_ns_ &&
      start < snd_max_) {
    record_stall({.start_ns = last_tx_ns_, .end_ns = now, .ack_delay_ns = 0,
                  .seq = static_cast<std::uint64_t>(std::max<std::int64_t>(snd_una_, 0)),
                  .outstanding = static_cast<std::uint64_t>(in_flight()),
                  .segments = 0, .segment_frame = last_tx_frame_, .release_frame = frame,
                  .kind = StallKind::retransmission});
  }
  // Where the time since the last accounted event went (core/limit_cause.h).
  if (acct_started_) {
    using core::LimitCause;
    const bool zero_window = have_window_ && window_raw_ == 0;
    if (in_flight() == 0) {
      // Idle: the application wrote nothing (or the window was shut). Counted once data follows.
      if (zero_window) {
        commit_pending();
        account_until(now, LimitCause::receiver_window);
      } else {
        auto& app = pending_[static_cast<std::size_t>(LimitCause::sender_app)];
        app += now - acct_ns_;
        pend_span(static_cast<std::uint8_t>(LimitCause::sender_app), acct_ns_, now);
        pending_events_[static_cast<std::size_t>(LimitCause::sender_app)]++;
        acct_ns_ = now;
        if (new_data) {
          if (p.payload_len >= max_payload_ && paced_after_previous(now - last_data_ns_)) {
            // A full segment one frame time after the one before: queued behind it at the
            // bottleneck (a capture past it sees the link's pace), not an idle sender.
            pending_idle_to(LimitCause::network, app);
          } else {
            // The first round trip after the ACK that emptied the flight is the ACK's way back
            // to the sender (a receiver-side capture sees it whole): the path's, not the
            // application's.
            const std::int64_t rtt = path_rtt_ns();
            const std::optional<std::int64_t> side = sender_side_ns();
            if (!last_data_psh_ && p.has(tcp_flag::psh) && side && 4 * *side >= *report_.handshake_rtt_ns &&
                have_window_ && window_bytes(window_raw_) >= full_segment() && app - rtt >= threshold_ns_) {
              // Idle in the middle of a write (no PSH: the sender had data queued) with everything
              // seen ACKed and a full segment of window open, a stall's length beyond the path's
              // whole round trip (the handshake's: the ACK's way to the sender and the data's way
              // back to the capture point at most; without it the ACK's way back is unknown, and
              // may be the whole idle), at a capture point a quarter of the round trip or more
              // from the sender (the handshake's round trip less the data-to-ACK floor; at the
              // sender nothing is lost before the capture point, and a sender's own hold after a
              // timeout, as Linux's after an RTO, is seen there as it is): nothing held the
              // sender (no flight, no shut window, a freed
              // buffer, the reaction to an ACK a stall's length at most, as the held ACK's), so
              // what it sends next it had sent already, lost before the capture point: the write's
              // last segment, which no later segment follows to draw duplicate ACKs (RFC 5681
              // §3.2), resent by a tail-loss probe or the retransmission timer (RFC 8985 §7,
              // RFC 6298). The capture sees it once, late: the idle is the loss's. The segment that
              // ends the idle has PSH: the resent tail is the write's last segment, sent again with
              // its flags (Linux resends the same skb, RFC 8985 §7.3); a corked or sendfile sender
              // (TCP_CORK, MSG_MORE) sets PSH only at its transfer's end, so its waits in the middle
              // (a disk read) end in a segment without it, and are not taken for a loss.
              pending_idle_to(LimitCause::loss, app);
              report_.loss_events++;
              report_.unseen_tail_losses++;
              undo_turn();
            } else {
              // A sender that went idle in the middle of a write (its last segment without PSH:
              // BSD and Linux set PSH when a write's last byte, or the send buffer's, leaves;
              // Winsock on each send's last segment, docs/STACKS.md §1) had data queued: the wait
              // is the flight's (a window or a buffer held it, the ACK's way back included, whatever
              // the vantage point), not the application's.
              const std::int64_t clock =
                  last_data_psh_ ? std::clamp<std::int64_t>(std::min(now - idle_since_, rtt), 0, app) : app;
              app -= clock;
              // Idle a stall's length beyond that: the ACK released nothing (issue 37: a wait is a
              // limit's only if its ACK released the sender). The wait it ended was the round trip
              // of a write the application had finished, no flight held by a limit: the path's.
              const bool released_nothing = app >= threshold_ns_;
              if (released_nothing) undo_turn();
              if (idle_after_peer_data_ || released_nothing) {
                // The ACK came with the peer's request: the data that follows answers it (a
                // request/response turn over the path), not a flight clocked out by the ACK.
                account(LimitCause::network, clock);
              } else {
                flight_ns_ += clock;
              }
              // The timeline: the clock's share is the first of the idle spans.
              std::int64_t left = clock;
              for (std::size_t i = 0; i < pending_spans_.size() && left > 0; ++i) {
                Span& sp = pending_spans_[i];
                if (sp.cause != static_cast<std::uint8_t>(LimitCause::sender_app)) continue;
                const std::int64_t take = std::min(left, sp.end - sp.start);
                const std::uint8_t to =
                    idle_after_peer_data_ || released_nothing ? static_cast<std::uint8_t>(LimitCause::network) : kFlight;
                if (take == sp.end - sp.start) {
                  sp.cause = to;
                } else {
                  pending_spans_.insert(pending_spans_.begin() + static_cast<std::ptrdiff_t>(i),
                                        Span{sp.start, sp.start + take, to});
                  pending_spans_[i + 1].start += take;
                }
                left -= take;
              }
            }
          }
          commit_pending();
        }
      }
    } else if (zero_window) {
      account_until(now, LimitCause::receiver_window);
    } else if (retransmission || in_recovery_) {
      account_until(now, LimitCause::loss);
    } else if (last_event_sender_) {
      // Data after data: the sender kept sending its flight (line rate, pacing: the flight's
      // limit, decided at report), unless it paused longer than a stall with window to spare:
      // its application. Beside the receiver the ACK that clocked this segment out left just
      // before the previous segment arrived: a pause of one round trip (the sender lag, less
      // the floor) is the path's (window_edge.h).
      if (now - acct_ns_ - 4 * sender_lag_ns() / 3 < threshold_ns_) {
        flight_until(now);
      } else {
        account_until(now, LimitCause::sender_app);
      }
    } else {
      // Data after an ACK: the ACK clocked it out, one round trip at a receiver-side capture.
      const std::int64_t rtt = path_rtt_ns();
      if (now - acct_ns_ - rtt >= threshold_ns_) {
        account_until(now, LimitCause::sender_app);
      } else {
        flight_events_++;
        held_ack_.note_reaction(now - acct_ns_);
        flight_until(now);
      }
    }
  }
  if (retransmission && p.payload_len > 0 && !in_recovery_) {
    // A recovery lasts until everything sent before it is ACKed (RFC 6675 RecoveryPoint).
    in_recovery_ = true;
    recover_ = snd_max_;
    report_.loss_events++;
  }
  bool new_segment = false;  // counted in data_segments: one that can be counted resent later
  if (p.payload_len > 0) {
    if (data_start > data_max_ && report_.data_segments > 0) {
      // New data beyond the highest seen: a hole (lost before the capture point, or missed by it).
      report_.sequence_holes++;
      if (holes_.size() < 1024) holes_[data_max_] = data_start;
      if (!hole_mark_) mark_hole(now);
    }
    if (!holes_.empty() && data_start < data_max_) {
      // Data filling (part of) a hole: what remains of it stays a hole.
      if (retransmission && hole_mark_) loss_since_hole();
      for (auto it = holes_.lower_bound(0); it != holes_.end();) {
        const std::int64_t hs = it->first, he = it->second;
        if (he <= data_start || hs >= data_end) { ++it; continue; }
        it = holes_.erase(it);
        if (hs < data_start) holes_[hs] = data_start;
        if (he > data_end) holes_[data_end] = he;
      }
      // A hole still open after this fill is in recovery from now on (upstream_loss.h).
      if (!holes_.empty() && !hole_mark_) mark_hole(now);
    }
    if (data_end > data_max_) {
      note_round(now, data_end - std::max(data_start, data_max_));
      if (window_scale_known()) edge_.note_data(now, data_end, sender_lag_ns(), full_segment());
      // The fit is read only without the handshake (report()'s no_handshake): fed only then.
      if (no_handshake()) scale_fit_.note_data(now, data_end, full_segment());
      if (report_.data_segments > 0 && p.payload_len >= max_payload_ && last_data_full_) {
        // The first 131,072 spacings (1 MiB; flat beyond): their median is reported. The last 8
        // (a ring) tell whether a segment left paced behind the one before it.
        if (const std::int64_t gap = now - last_data_ns_; gap > 0) {
          if (full_spacings_.size() < (std::size_t{1} << 17)) full_spacings_.push_back(gap);
          recent_spacings_.add(gap);
        }
      }
      if (report_.data_segments > 0 && snd_una_ >= data_max_) {
        note_idle(now - std::max(last_ack_ns_, last_data_ns_));
      }
      last_data_full_ = p.payload_len >= max_payload_;
      const std::int64_t since_last_data = now - last_data_ns_;
      note_nagle_after_release(p, now);
      last_data_ns_ = now;
      note_write(p, data_end - std::max(data_start, data_max_), since_last_data);
      data_max_ = data_end;
      report_.bytes_sent = static_cast<std::uint64_t>(data_max_);
      report_.data_segments++;
      new_segment = true;
      if (report_.data_segments == 1) {
        report_.first_data_ns = now;
        if (handshake_done_ns_) {
          report_.wait_before_data_ns = now - *handshake_done_ns_;
          report_.peer_spoke_first = report_.peer_data_bytes > 0;
        }
        acct_started_ = true;
        acct_ns_ = now;
        account_prologue(now);
      }
    } else {
      report_.retransmissions++;
      const std::uint64_t resent = mark_resent(data_start, data_end);
      report_.retransmitted_segments += resent;
      if (recovery_.valid && recovery_.n < recovery_.resends.size()) {
        recovery_.resends[recovery_.n++] = {data_start, data_end, resent, false};
      } else {
        recovery_.untold = true;
      }
    }
    max_payload_ = std::max(max_payload_, p.payload_len);
  }
  if (end > snd_max_) {
    flight_.push_back({end, now, frame, !new_segment});
    snd_max_ = end;
    report_.max_in_flight = std::max(report_.max_in_flight, static_cast<std::uint64_t>(in_flight()));
  }
  any_tx_ = true;
  last_tx_ns_ = now;
  last_tx_frame_ = frame;
  last_event_sender_ = true;
  if (p.payload_len > 0) turn_ = {};  // the sender went on: those waits were a flight's
}

std::uint64_t HalfFlow::mark_resent(std::int64_t start, std::int64_t end) {
  // The segments in flight whose sequence space [previous end, end) meets [start, end): each is
  // one segment resent, however often (a segment resent by timeout backoff three times is one
  // segment resent, three retransmissions), so no more segments are resent than were sent.
  auto it = std::upper_bound(flight_.begin(), flight_.end(), start,
                             [](std::int64_t s, const InFlight& f) { return s < f.end; });
  std::uint64_t n = 0;
  bool met = false;
  // All of it below the cumulative ACK: no segment in flight holds any of it.
  if (end <= snd_una_) it = flight_.end();
  for (; it != flight_.end(); ++it) {
    if (it != flight_.begin() && std::prev(it)->end >= end) break;
    met = true;
    if (!it->resent) {
      it->resent = true;
      ++n;
    }
  }
  // Nothing in flight holds it: sent in the capture and ACKed already (a spurious resend), one
  // segment resent; sent before the capture began (below relative 0), a retransmission only; one
  // byte of ACKed data is a keep-alive (RFC 9293 §3.8.4), no segment resent.
  if (!met && start >= 0 && end - start > 1) return 1;
  return n;
}

bool HalfFlow::paced_after_previous(std::int64_t since_last_data) const {
  // The median of the last (up to) 8 full-size spacings, once there are 2.
  const std::optional<std::int64_t> mid = recent_spacings_.median();
  if (!mid) return false;
  // A spacing as long as a stall is no frame time (20 ms a 1500-byte frame is 0.6 Mbit/s): an
  // application writing at its own pace (a poller, a paced writer), whose idle time is its own.
  if (*mid >= threshold_ns_) return false;
  // Nor is one of half the round trip or more on a path of a millisecond or more (kFarRttNs: a
  // LAN's round trip is a few frame times): one segment a round trip (a window of one segment),
  // clocked by the ACKs, not queued at a link (window_edge.h decides that flight).
  const std::int64_t rtt = report_.handshake_rtt_ns.value_or(0);
  if (rtt >= kFarRttNs && 2 * *mid >= rtt) return false;
  return since_last_data <= *mid + *mid / 4;
}

void HalfFlow::note_write(const TcpPacket& p, std::int64_t new_bytes, std::int64_t since_last_data) {
  // Nagle (RFC 896; BSD tcp_output, docs/STACKS.md §0): a segment shorter than the MSS waits
  // while data is unacknowledged. Its trace: a sub-MSS segment in the middle of a write (the one
  // before it had no PSH) that left only once nothing was outstanding.
  // The full-segment payload: the announced MSS less the timestamps option (a full 1448-byte
  // segment under a 1460 MSS is not short).
  const std::uint32_t mss = full_segment();
  // Not one that left a frame time after the segment before it (within a quarter of the recent
  // full-size spacing): that one was queued behind it at a shaper (the lab's tbf), and the ACK
  // that beat it to the capture point did not release it (measured on the lab corpus,
  // VALIDATION §6: 720-byte IPv6 write tails were all called Nagle holds before).
  if (report_.data_segments > 0 && !last_data_psh_ && p.payload_len < mss && snd_una_ >= snd_max_ &&
      !paced_after_previous(since_last_data)) {
    if (report_.nagle_holds++ == 0) report_.nagle_hold_frame = last_tx_frame_ + 1;
  }
  // Write boundaries: BSD and Linux set PSH when a write's last byte leaves the send buffer
  // (BSD tcp_output "sendalot"/TF_MORETOCOME, Linux tcp_push), Winsock on each send's last
  // segment (docs/STACKS.md §1).
  write_bytes_ += static_cast<std::uint64_t>(std::max<std::int64_t>(new_bytes, 0));
  ++write_segments_;
  last_data_psh_ = p.has(tcp_flag::psh);
  if (last_data_psh_) {
    report_.writes++;
    constexpr std::size_t kMaxDistinct = 4096;  // memory stays bounded on irregular writes
    if (report_.write_sizes.size() < kMaxDistinct || report_.write_sizes.contains(write_bytes_)) {
      report_.write_sizes[write_bytes_]++;
    }
    if (report_.segments_per_write.size() < kMaxDistinct ||
        report_.segments_per_write.contains(write_segments_)) {
      report_.segments_per_write[write_segments_]++;
    }
    write_bytes_ = 0;
    write_segments_ = 0;
  }
}

void HalfFlow::on_receiver(const TcpPacket& p, std::uint64_t frame, std::uint8_t ttl) {
  note_handshake(p, false);
  if (ttl != 0 && report_.receiver_ttl == 0) report_.receiver_ttl = ttl;
  if (p.has(tcp_flag::syn)) {
    receiver_syn_ = true;
    receiver_wscale_ = p.options.wscale;
    receiver_mss_ = p.options.mss;
    receiver_timestamps_ = p.options.timestamps.has_value();
    report_.receiver_sack = p.options.sack_ok;
  } else if (p.options.timestamps) {
    receiver_timestamps_ = true;  // as above, from the receiver's side
  }
  if (hs_sender_ns_ && !hs_floor_done_ && p.has(tcp_flag::ack) && !p.has(tcp_flag::rst)) {
    note_floor(p.time_ns - *hs_sender_ns_);
    hs_floor_done_ = true;
  }
  report_.peer_data_bytes += p.payload_len;
  if (!have_base_) note_prologue(p);
  if (!p.has(tcp_flag::ack) || p.has(tcp_flag::rst) || !have_base_) {
    window_raw_ = p.window;
    have_window_ = !p.has(tcp_flag::rst);
    return;
  }
  using core::LimitCause;
  const std::int64_t now = p.time_ns;
  settle_held(now);
  const std::int64_t a = relative(p.ack);
  if (p.sack.count > 0 && recovery_.valid) note_dsack(p);
  const std::int64_t flight_before = in_flight();
  // Bytes the receiver ACKs that no captured segment carried: the capture missed them.
  std::int64_t unseen = 0;
  if (a > snd_max_) {
    if (report_.data_segments > 0) unseen += a - std::max(snd_max_, snd_una_);
    // The last segment sent is not in the capture: whether it ended a write (PSH) is unknown, so
    // an idle after it is not taken for one in the middle of a write (the idle branch's rule).
    last_data_psh_ = true;
    snd_max_ = a;
    data_max_ = std::max(data_max_, a);
    report_.bytes_sent = static_cast<std::uint64_t>(std::max<std::int64_t>(data_max_, 0));
    flight_.clear();
  }
  while (!holes_.empty() && holes_.begin()->first < a) {
    const auto [hs, he] = *holes_.begin();
    holes_.erase(holes_.begin());
    unseen += std::min(he, a) - hs;
    if (he > a) holes_[a] = he;
  }
  if (holes_.empty()) hole_mark_.reset();  // ACKed past unfilled: missed by the capture, no loss
  report_.uncaptured_bytes += static_cast<std::uint64_t>(unseen);
  // A SYN's window is never scaled (RFC 7323 §2.2).
  const std::int64_t new_window = p.has(tcp_flag::syn) ? p.window : window_bytes(p.window);
  const std::int64_t old_window = window_bytes(window_raw_);
  const bool advanced = a > snd_una_;
  const bool opened = have_window_ && a == snd_una_ && new_window > old_window;
  const bool was_zero = have_window_ && window_raw_ == 0;
  if (p.window == 0 && report_.data_segments > 0) report_.zero_window_acks++;
  if (advanced || opened) {
    std::uint32_t segments = 0;
    std::int64_t newest_sent = std::numeric_limits<std::int64_t>::min();
    std::uint64_t newest_frame = 0;
    while (!flight_.empty() && flight_.front().end <= a) {
      ++segments;
      if (flight_.front().sent_ns >= newest_sent) newest_frame = flight_.front().frame;
      newest_sent = std::max(newest_sent, flight_.front().sent_ns);
      flight_.pop_front();
    }
    if (advanced && !flight_.empty() && a > snd_una_ && segments == 0) {  // part of one segment
      segments = 1;
      newest_sent = flight_.front().sent_ns;
      newest_frame = flight_.front().frame;
    }
    const std::int64_t ack_delay = segments > 0 ? now - newest_sent : 0;
    if (advanced && segments > 0 && !in_recovery_ && unseen == 0) note_floor(ack_delay);
    // The wait beyond the path's floor: a wait of one round trip is the path, not a stall.
    const std::int64_t excess = now - last_tx_ns_ - floor_ns();
    const bool window_full =
        have_window_ && window_scale_known() && snd_una_ + old_window - snd_max_ < max_payload_;
    const bool waited = any_tx_ && report_.data_segments > 0 && (flight_before > 0 || was_zero) &&
                        excess >= threshold_ns_;
    // RFC 1122 §4.2.3.2: an ACK "MUST NOT be excessively delayed; ... less than 0.5 seconds".
    constexpr std::int64_t kMaxAckDelay = 500'000'000;
    StallKind kind = StallKind::slow_ack;
    if (was_zero) {
      kind = StallKind::zero_window;
    } else if (!advanced) {
      kind = StallKind::window_update;
    } else if (window_full) {
      kind = StallKind::window_limited;
    } else if (p.payload_len > 0) {
      kind = StallKind::reply;
    } else if (segments == 1 && excess <= kMaxAckDelay) {
      kind = StallKind::delayed_ack;
    }
    if (waited) {
      const Stall s{.start_ns = last_tx_ns_, .end_ns = now, .ack_delay_ns = ack_delay,
                    .seq = static_cast<std::uint64_t>(std::max<std::int64_t>(snd_una_, 0)),
                    .outstanding = static_cast<std::uint64_t>(std::max<std::int64_t>(flight_before, 0)),
                    .segments = segments,
                    .segment_frame = newest_frame != 0 ? newest_frame : last_tx_frame_,
                    .release_frame = frame, .kind = kind};
      if (kind == StallKind::delayed_ack) {
        held_ack_.hold({s, std::max<std::int64_t>(now - acct_ns_ - excess, 0)});  // settle_held decides
      } else {
        record_stall(s);
      }
    } else if (advanced && segments > 0 && ack_delay - floor_ns() < threshold_ns_) {
      if (segments == 1) {
        report_.prompt_acks_one++;
      } else if (segments == 2) {
        report_.prompt_acks_two++;
      } else {
        report_.prompt_acks_more++;
      }
    }
    held_release_ns_.reset();
    if (waited && (kind == StallKind::delayed_ack || kind == StallKind::slow_ack) && a >= data_max_) {
      held_release_ns_ = now;
    }
    // The accounts: the wait that this ACK ends.
    if (acct_started_) {
      const std::int64_t dt = now - acct_ns_;
      if (flight_before == 0 && !was_zero) {
        const auto c = p.payload_len > 0 ? LimitCause::peer_reply : LimitCause::sender_app;
        pending_[static_cast<std::size_t>(c)] += dt;
        pend_span(static_cast<std::uint8_t>(c), acct_ns_, now);
        pending_events_[static_cast<std::size_t>(c)]++;
        acct_ns_ = now;
      } else if (unseen > 0) {
        account_until(now, LimitCause::not_captured);
      } else if (was_zero || kind == StallKind::window_update) {
        commit_pending();
        account_until(now, core::cause_of(kind));  // the receiver's window (core/stall_kind.h)
      } else if (in_recovery_) {
        account_until(now, LimitCause::loss);
      } else if (waited && kind == StallKind::delayed_ack) {
        // Accounted by settle_held once the sender's next segment shows the ACK released it.
      } else if (waited) {
        // The kind's cause (core/stall_kind.h): a reply the peer's, a full window the receiver's,
        // a late ACK of several segments (a queue, a busy host) the network's.
        account_until(now, core::cause_of(kind));
      } else if (window_full) {
        account_until(now, LimitCause::receiver_window);
      } else if (p.payload_len > 0) {
        account_until(now, LimitCause::network);  // a reply within the round trip: the path's latency
      } else {
        // A prompt ACK clocked the sender on: the flight at this wait tells its limit.
        flight_events_++;
        const std::int64_t from = acct_ns_;
        flight_until(now);
        if (flight_before > 0) {
          report_.flight_waits++;
          const std::size_t bucket = core::eighth_octave_bucket(static_cast<std::uint64_t>(flight_before), kFlightBuckets - 1);
          ++flight_hist_[bucket];
          // An ACK of everything may end a turn rather than clock a flight: undone if the peer's
          // request comes next, or nothing for a stall's length (undo_turn).
          if (turn_.n > 0 && (turn_.end != from || turn_.n == turn_.buckets.size())) turn_.untold = true;
          if (turn_.n == 0) turn_.start = from;
          if (turn_.n < turn_.buckets.size()) turn_.buckets[turn_.n++] = static_cast<std::uint16_t>(bucket);
          turn_.end = now;
          turn_.emptied = a >= data_max_;
        }
      }
      last_event_sender_ = false;
    }
    if (advanced) {
      snd_una_ = a;
      if (in_flight() == 0) {
        idle_since_ = now;
        idle_after_peer_data_ = p.payload_len > 0;
      }
      last_ack_ns_ = now;
      report_.bytes_acked = static_cast<std::uint64_t>(std::clamp<std::int64_t>(a, 0, data_max_));
      report_.last_ack_ns = now;
      if (in_recovery_ && a >= recover_) in_recovery_ = false;
    }
  } else if (acct_started_ && in_flight() == 0) {
    // Nothing in flight and nothing new ACKed: a shut window, or the peer's own data (a request
    // this side answers next).
    if (was_zero) {
      commit_pending();
      account_until(now, LimitCause::receiver_window);
    } else if (p.payload_len > 0) {
      pending_[static_cast<std::size_t>(LimitCause::peer_reply)] += now - acct_ns_;
      pend_span(static_cast<std::uint8_t>(LimitCause::peer_reply), acct_ns_, now);
      pending_events_[static_cast<std::size_t>(LimitCause::peer_reply)]++;
      acct_ns_ = now;
      if (!idle_after_peer_data_) undo_turn();
      idle_after_peer_data_ = true;  // the data that follows answers this request
    }
  }
  if (!p.has(tcp_flag::syn) && window_scale_known()) edge_.note_ack(now, a + new_window);
  if (!p.has(tcp_flag::syn) && no_handshake()) scale_fit_.note_ack(a, p.window);
  window_raw_ = p.window;
  have_window_ = true;
  // The window offered for the data: a SYN's (unscaled, before the receiver's buffer is sized)
  // counts only until the first window after it.
  if (p.has(tcp_flag::syn)) {
    if (!data_window_seen_) {
      report_.max_window_offered = std::max<std::uint64_t>(report_.max_window_offered,
                                                           static_cast<std::uint64_t>(new_window));
    }
  } else {
    if (!data_window_seen_) report_.max_window_offered = 0;
    data_window_seen_ = true;
    report_.max_window_offered = std::max<std::uint64_t>(report_.max_window_offered,
                                                         static_cast<std::uint64_t>(new_window));
  }
}

void HalfFlow::note_dsack(const TcpPacket& p) {
  // RFC 2883 §4: the first SACK block reports a duplicate when it lies below the cumulative ACK,
  // or within the second block (Linux tcp_check_dsack); it is the range received twice.
  const std::uint32_t s0 = p.sack.edges[0], e0 = p.sack.edges[1];
  const bool dsack = static_cast<std::int32_t>(s0 - p.ack) < 0 ||
                     (p.sack.count > 1 && static_cast<std::int32_t>(e0 - p.sack.edges[3]) <= 0 &&
                      static_cast<std::int32_t>(s0 - p.sack.edges[2]) >= 0);
  if (!dsack) return;
  const std::int64_t ds = relative(s0), de = relative(e0);
  for (std::size_t i = 0; i < recovery_.n; ++i) {
    Resend& r = recovery_.resends[i];
    if (r.dsacked || r.start < ds || r.end > de) continue;
    // That resend reached a receiver that had the data already: spurious, no loss.
    r.dsacked = true;
    ++recovery_.dsacked;
    report_.spurious_resends++;
    report_.retransmissions--;
    report_.retransmitted_segments -= r.segments;
  }
  if (recovery_.undone || recovery_.untold || recovery_.n == 0 || recovery_.dsacked < recovery_.n) return;
  // Every resend of the recovery was spurious: no segment was lost (Linux tcp_try_undo_dsack).
  recovery_.undone = true;
  report_.loss_events--;
  in_recovery_ = false;
  const auto loss = static_cast<std::size_t>(core::LimitCause::loss);
  const std::int64_t moved = std::max<std::int64_t>(report_.cause_ns[loss] - recovery_.loss_ns, 0);
  report_.cause_ns[loss] -= moved;
  flight_ns_ += moved;
  // Nor a loss run for the reply link, as far as it is still open (reply_link.h).
  if (moved > 0) runs_.retract(static_cast<std::uint8_t>(loss), acct_ns_ - moved, acct_ns_);
  for (std::size_t i = std::min(recovery_.timeline_size, timeline_.size()); i < timeline_.size(); ++i) {
    if (timeline_[i].cause == static_cast<std::uint8_t>(loss)) timeline_[i].cause = kFlight;
  }
}

void HalfFlow::note_prologue(const TcpPacket& p) {
  // Only a mid-stream capture's ACKs: none once a SYN was seen (the handshake starts the flow).
  if (!p.has(tcp_flag::ack) || p.has(tcp_flag::syn) || p.has(tcp_flag::rst) || sender_syn_ || receiver_syn_) return;
  const std::int64_t now = p.time_ns;
  if (!prologue_.seen) {
    prologue_.seen = true;
    prologue_.first_ack = p.ack;
    prologue_.first_ns = now;
  }
  // Cumulative ACKs only advance (RFC 9293 3.10.7.4); sequence space wraps at 2^32.
  if (static_cast<std::int32_t>(p.ack - prologue_.last_ack) > 0 || prologue_.last_ack == 0) prologue_.last_ack = p.ack;
  prologue_.max_window = std::max(prologue_.max_window, p.window);
  if (p.window == 0) {
    prologue_.zero_acks++;
    if (prologue_.zero_since < 0) prologue_.zero_since = now;
  } else if (prologue_.zero_since >= 0) {
    prologue_.zeros.emplace_back(prologue_.zero_since, now);
    prologue_.zero_since = -1;
  }
}

void HalfFlow::account_prologue(std::int64_t first_data_ns) {
  if (!prologue_.seen || prologue_.first_ns >= first_data_ns) return;
  using core::LimitCause;
  report_.starts_mid_stream = true;
  report_.acked_before_data_bytes = static_cast<std::uint32_t>(prologue_.last_ack - prologue_.first_ack);
  report_.zero_window_acks += prologue_.zero_acks;
  // The windows it offered are windows for the data (after any SYN).
  data_window_seen_ = true;
  report_.max_window_offered =
      std::max<std::uint64_t>(report_.max_window_offered, static_cast<std::uint64_t>(window_bytes(prologue_.max_window)));
  // A window still zero when data comes (a window probe) counts as zero up to that data; the
  // ACKs after it are on_receiver's, as any zero window.
  if (prologue_.zero_since >= 0) prologue_.zeros.emplace_back(prologue_.zero_since, first_data_ns);
  if (prologue_.zeros.empty()) return;
  for (const auto& [from, to] : prologue_.zeros) report_.zero_window_before_data_ns += to - from;
  acct_ns_ = prologue_.zeros.front().first;
  for (const auto& [from, to] : prologue_.zeros) {
    account_until(from, LimitCause::network);  // a window open between two zero ones
    account_until(to, LimitCause::receiver_window);
  }
  account_until(first_data_ns, LimitCause::network);
}

void HalfFlow::mark_hole(std::int64_t now) {
  hole_mark_ = HoleMark{.at = now, .flight_ns = flight_ns_,
                        .network_ns = report_.cause_ns[static_cast<std::size_t>(core::LimitCause::network)],
                        .timeline_size = timeline_.size()};
}

void HalfFlow::loss_since_hole() {
  // upstream_loss.h: the flow was in recovery from the hole on.
  const HoleMark m = *hole_mark_;
  hole_mark_.reset();
  auto& network = report_.cause_ns[static_cast<std::size_t>(core::LimitCause::network)];
  const std::int64_t moved = std::max<std::int64_t>(flight_ns_ - m.flight_ns, 0) +
                             std::max<std::int64_t>(network - m.network_ns, 0);
  flight_ns_ = std::min(flight_ns_, m.flight_ns);
  network = std::min(network, m.network_ns);
  account(core::LimitCause::loss, moved);
  if (timeline_on_) {
    const auto loss = static_cast<std::uint8_t>(core::LimitCause::loss);
    const auto net = static_cast<std::uint8_t>(core::LimitCause::network);
    std::size_t from = std::min(m.timeline_size, timeline_.size());
    if (from > 0 && timeline_[from - 1].end > m.at && timeline_.size() < max_spans_ &&
        (timeline_[from - 1].cause == kFlight || timeline_[from - 1].cause == net)) {
      // The span that ran on past the mark: split at it (within the timeline's bound).
      Span& sp = timeline_[from - 1];
      const Span tail{std::max(sp.start, m.at), sp.end, loss};
      sp.end = tail.start;
      timeline_.insert(timeline_.begin() + static_cast<std::ptrdiff_t>(from), tail);
      ++from;
    }
    for (std::size_t i = from; i < timeline_.size(); ++i) {
      if (timeline_[i].cause == kFlight || timeline_[i].cause == net) timeline_[i].cause = loss;
    }
  }
}

std::int64_t HalfFlow::ack_to_sender_ns() const noexcept {
  // How long an ACK seen at the capture point takes to reach the sender and its data to come back
  // past the capture point: the handshake's round trip less the data-to-ACK floor (the receiver's
  // side of the path; ~0 at the sender, the whole round trip beside the receiver), a quarter more
  // for queueing. A floor above the handshake's round trip is no path floor (every ACK in it was
  // held): the position is unknown and the whole round trip is allowed. Without a handshake, the
  // floor is all that is known of the path.
  if (const auto side = sender_side_ns()) return *side * 5 / 4;
  return path_rtt_ns();
}

std::optional<std::int64_t> HalfFlow::sender_side_ns() const noexcept {
  if (!report_.handshake_rtt_ns || floor_ns() > *report_.handshake_rtt_ns) return std::nullopt;
  return *report_.handshake_rtt_ns - floor_ns();
}

std::int64_t HalfFlow::sender_lag_ns() const noexcept {
  // window_edge.h: the ACK the sender answers left the capture point this long before its data
  // (three quarters of it, for jitter): the handshake's round trip less the floor.
  return sender_side_ns().value_or(0) * 3 / 4;
}

void HalfFlow::note_floor(std::int64_t ns) {
  if (ns < 0) return;
  if (!report_.rtt_floor_ns || ns < *report_.rtt_floor_ns) report_.rtt_floor_ns = ns;
}

void HalfFlow::account(core::LimitCause c, std::int64_t ns) {
  if (ns <= 0) return;
  report_.cause_ns[static_cast<std::size_t>(c)] += ns;
  report_.cause_events[static_cast<std::size_t>(c)]++;
}

void HalfFlow::pending_idle_to(core::LimitCause c, std::int64_t& idle) {
  account(c, idle);
  idle = 0;
  for (Span& sp : pending_spans_) {
    if (sp.cause == static_cast<std::uint8_t>(core::LimitCause::sender_app)) sp.cause = static_cast<std::uint8_t>(c);
  }
}

void HalfFlow::pend_span(std::uint8_t cause, std::int64_t start, std::int64_t end) {
  // Kept whether or not the timeline is: the reply link (reply_link.h) reads the committed spans.
  // Adjacent spans of one cause merge, so an idle direction holds one span however many of the
  // peer's segments came meanwhile.
  if (end <= start) return;
  if (!pending_spans_.empty() && pending_spans_.back().cause == cause && pending_spans_.back().end == start) {
    pending_spans_.back().end = end;
  } else {
    pending_spans_.push_back({start, end, cause});
  }
}

void HalfFlow::timeline_span(std::uint8_t cause, std::int64_t start, std::int64_t end) {
  if (!timeline_.empty() && timeline_.back().cause == cause && timeline_.back().end == start) {
    timeline_.back().end = end;
  } else if (timeline_.size() < max_spans_) {
    timeline_.push_back({start, end, cause});
  }
}

void HalfFlow::undo_turn() {
  // The waits that the ACK of everything ended (one, or several ACKs of a turn's data) were the
  // round trip of a request/response turn (the peer's request followed it) or of a finished write
  // (nothing followed for a stall's length), not a flight held by a limit: the path's time.
  const TurnWaits w = turn_;
  turn_ = {};
  if (w.n == 0 || !w.emptied || w.untold) return;
  flight_ns_ -= w.end - w.start;
  report_.flight_waits -= w.n;
  for (std::size_t i = 0; i < w.n; ++i) --flight_hist_[w.buckets[i]];
  account(core::LimitCause::network, w.end - w.start);
  if (!timeline_.empty() && timeline_.back().cause == kFlight && timeline_.back().end == w.end &&
      timeline_.back().start <= w.start) {
    if (timeline_.back().start == w.start) {
      timeline_.back().cause = static_cast<std::uint8_t>(core::LimitCause::network);
    } else {
      timeline_.back().end = w.start;
      timeline_.push_back({w.start, w.end, static_cast<std::uint8_t>(core::LimitCause::network)});
    }
  }
}

void HalfFlow::flight_until(std::int64_t now) {
  if (now <= acct_ns_) return;
  span(kFlight, acct_ns_, now);
  flight_ns_ += now - acct_ns_;
  acct_ns_ = now;
}

void HalfFlow::account_until(std::int64_t now, core::LimitCause c) {
  span(static_cast<std::uint8_t>(c), acct_ns_, now);
  account(c, now - acct_ns_);
  acct_ns_ = std::max(acct_ns_, now);
}

void HalfFlow::commit_pending() {
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    report_.cause_ns[i] += pending_[i];
    report_.cause_events[i] += pending_events_[i];
  }
  pending_ = {};
  pending_events_ = {};
  for (const Span& sp : pending_spans_) span(sp.cause, sp.start, sp.end);
  pending_spans_.clear();
}

std::uint32_t HalfFlow::full_segment() const noexcept {
  // The full-segment payload: the announced MSS less the timestamps option (RFC 7323 §3.2).
  const std::optional<std::uint16_t> announced = receiver_mss_ ? receiver_mss_ : report_.mss;
  const bool ts = report_.timestamps && (!receiver_syn_ || receiver_timestamps_);
  return announced ? static_cast<std::uint32_t>(std::max<std::int64_t>(core::segment_payload(*announced, ts), 1)) : max_payload_;
}

void HalfFlow::note_nagle_after_release(const TcpPacket& p, std::int64_t now) {
  // Nagle (RFC 896): with data unacknowledged, a segment shorter than the MSS waits for the ACK.
  // Its trace after a held ACK: the sub-MSS segment leaves as soon as that ACK arrives (within
  // the round trip seen at a receiver-side capture).
  if (!held_release_ns_ || p.payload_len >= full_segment()) return;
  const std::int64_t rtt = report_.handshake_rtt_ns.value_or(0);
  if (now - *held_release_ns_ <= rtt + 2'000'000 && report_.nagle_holds++ == 0) {
    report_.nagle_hold_frame = last_tx_frame_ + 1;
  }
  held_release_ns_.reset();
}

void HalfFlow::settle_held(std::int64_t now) {
  auto& held = held_ack_.held();
  if (!held) return;
  const HeldAck::Wait w = *held;
  held.reset();
  // Not released: the sender did not go on when the ACK came. The wait stays unaccounted here and
  // goes with the idle time that follows (the application's, or the peer's when its data ends it).
  // (now == INT64_MIN: the capture's end, nothing after it.)
  if (now != std::numeric_limits<std::int64_t>::min() && now - w.stall.end_ns > held_ack_.bound_ns(ack_to_sender_ns(), threshold_ns_)) {
    return;
  }
  record_stall(w.stall);
  if (!acct_started_) return;
  // The hold beyond the floor is the timer's; the floor itself is the path's (held_spans: the
  // same spans for final_runs).
  flight_until(held_spans(w).first);
  span(static_cast<std::uint8_t>(core::LimitCause::delayed_ack), acct_ns_, w.stall.end_ns);
  account(core::LimitCause::delayed_ack, w.stall.end_ns - acct_ns_);
  acct_ns_ = std::max(acct_ns_, w.stall.end_ns);
}

void HalfFlow::note_round(std::int64_t now, std::int64_t new_bytes) {
  const std::int64_t rtt = report_.handshake_rtt_ns.value_or(0);
  if (rtt <= 0) return;
  if (round_bytes_ > 0 && now - round_start_ >= rtt) {
    // A round trip ends; one that the sender left idle for longer than a round trip is not a
    // flight (its bytes are the application's).
    if (now - round_start_ < 2 * rtt) {
      ++round_hist_[core::eighth_octave_bucket(static_cast<std::uint64_t>(round_bytes_), kFlightBuckets - 1)];
      ++rounds_;
    }
    round_bytes_ = 0;
  }
  if (round_bytes_ == 0) round_start_ = now;
  round_bytes_ += new_bytes;
}

namespace {
std::uint64_t log_quantile(const std::uint32_t* hist, std::size_t buckets, std::uint64_t count, double q) {
  std::uint64_t seen = 0;
  const auto want = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count)));
  for (std::size_t b = 0; b < buckets; ++b) {
    seen += hist[b];
    if (seen >= std::max<std::uint64_t>(want, 1)) {
      return static_cast<std::uint64_t>(std::exp2((static_cast<double>(b) + 0.5) / 8.0));
    }
  }
  return 0;
}
}  // namespace

std::uint64_t HalfFlow::round_quantile(double q) const {
  return log_quantile(round_hist_.data(), kFlightBuckets, rounds_, q);
}

std::uint64_t HalfFlow::flight_quantile(double q) const {
  return log_quantile(flight_hist_.data(), kFlightBuckets, report_.flight_waits, q);
}

void HalfFlow::note_idle(std::int64_t ns) {
  ++report_.idle_starts;
  ++idle_hist_[core::quarter_octave_us_bucket(ns, kIdleBuckets - 1)];
}

std::optional<std::int64_t> HalfFlow::idle_median_ns() const {
  if (report_.idle_starts == 0) return std::nullopt;
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < kIdleBuckets; ++b) {
    seen += idle_hist_[b];
    if (2 * seen >= report_.idle_starts) {  // the bucket's geometric middle (+-9 %)
      return static_cast<std::int64_t>(1000.0 * std::exp2((static_cast<double>(b) + 0.5) / 4.0));
    }
  }
  return std::nullopt;
}

std::int64_t HalfFlow::link_horizon(std::int64_t now) const noexcept {
  // Before its first data a direction has no accounts: they start with that data, after `now`.
  if (!acct_started_) return now;
  // Spans not yet committed (idle time that waits for more data) are committed later, from their start.
  const std::int64_t h = runs_.horizon();
  return pending_spans_.empty() ? h : std::min(h, pending_spans_.front().start);
}

RunRecorder HalfFlow::final_runs() const {
  // The runs as report() settles them (settle_held at the capture's end), without copying the
  // whole flow: the held wait's spans, as settle_held notes them.
  RunRecorder runs = runs_;
  if (const auto& held = held_ack_.peek(); held && acct_started_) {
    const auto [path_end, end] = held_spans(*held);
    if (path_end > acct_ns_) runs.note(kFlight, acct_ns_, path_end);
    if (end > std::max(acct_ns_, path_end)) runs.note(static_cast<std::uint8_t>(core::LimitCause::delayed_ack), std::max(acct_ns_, path_end), end);
  }
  return runs;
}

DirectionReport HalfFlow::report() const {
  if (held_ack_.pending()) {
    // A delayed-ACK wait at the capture's end: nothing after it says the ACK released nothing.
    // It is announced (ScanOptions::on_stall) when the report is made.
    HalfFlow settled = *this;
    settled.settle_held(std::numeric_limits<std::int64_t>::min());
    return settled.report();
  }
  DirectionReport r = report_;
  r.idle_before_send_ns = idle_median_ns();
  r.max_segment = max_payload_;
  // The sender's segments are bounded by the MSS the receiver announced (RFC 9293 3.7.1), and
  // carry the timestamps option (12 bytes of each) only when both SYNs offered it (RFC 7323 3.2).
  if (receiver_syn_) {
    if (receiver_mss_) r.mss = receiver_mss_;
    r.timestamps = r.timestamps && receiver_timestamps_;
  }
  if (r.mss) r.effective_mss = static_cast<std::uint32_t>(core::segment_payload(*r.mss, r.timestamps));
  r.receiver_wscale = receiver_wscale_;
  // The prompt waits for ACKs: the receiver's window when the rate carries it every round trip;
  // a sender buffer or per-send quota when the flight at them is flat (within 30 %) or bounded
  // (below), well below the receiver's window and never cut by a loss (a congestion window grows
  // each round trip until a loss or the receiver's window stops it: RFC 5681 §3.1), and the path
  // was not full (below); else the network (T-RAT's transport- versus congestion-limited test).
  if (!full_spacings_.empty()) r.back_to_back_ns = median_of(full_spacings_);
  // Beside the receiver (data ACKed at once, the handshake's round trip whole), the flight at an
  // ACK is only the last hop's: the bytes of a round trip stand for it.
  const std::int64_t hs_rtt = r.handshake_rtt_ns.value_or(0);
  const bool beside_receiver = hs_rtt >= kFarRttNs && 4 * floor_ns() < hs_rtt;
  r.flight_per_round = beside_receiver && rounds_ >= 4;
  if (r.flight_per_round) {
    r.flight_waits = rounds_;
    r.flight_p25 = round_quantile(0.25);
    r.flight_p50 = round_quantile(0.50);
    r.flight_p90 = round_quantile(0.90);
  } else {
    r.flight_p25 = flight_quantile(0.25);
    r.flight_p50 = flight_quantile(0.50);
    r.flight_p90 = flight_quantile(0.90);
  }
  {
    // The rate while the flight's limit set the pace (waits for held ACKs, recoveries, the
    // application's pauses left out).
    const std::int64_t busy = flight_ns_ + r.cause_ns[static_cast<std::size_t>(core::LimitCause::network)];
    const double goodput = busy > 0 ? static_cast<double>(r.bytes_acked) * 1e9 / static_cast<double>(busy) : 0;
    const double line = r.back_to_back_ns > 0 && max_payload_ > 0 && max_payload_ >= full_segment()
                            ? static_cast<double>(max_payload_) * 1e9 / static_cast<double>(r.back_to_back_ns)
                            : 0;
    // Flat, or bounded over many waits: a congestion window without loss doubles each round
    // trip in slow start and grows by a segment each round trip after it (RFC 5681 §3.1), so
    // one that stays under half the window for 16 ACK-clocked waits is not what bounds it.
    // (Beside the receiver, fewer than 4 round trips tell nothing of the flight: a short transfer
    // in slow start.)
    const bool flat = (r.flight_per_round || !beside_receiver) && r.flight_waits >= 4 &&
                      (10 * r.flight_p25 >= 7 * r.flight_p90 || r.flight_waits >= 16);
    const bool below_window = r.max_window_offered > 0 && 2 * r.flight_p90 <= r.max_window_offered;
    // The path is full when segments leave at 90 % of their back-to-back rate or more. A paced
    // sender's spacing is not the link's: Linux paces at 1.2 x cwnd/srtt after slow start and
    // 2 x in it (net/ipv4/tcp_input.c, tcp_update_pacing_rate; sysctls tcp_pacing_ca_ratio = 120,
    // tcp_pacing_ss_ratio = 200), so a flow held by anything else runs at <= 1/1.2 of its spacing.
    // (A spacing as long as a stall is no frame time: paced_after_previous's rule.)
    const bool path_full = line > 0 && goodput >= 0.9 * line && r.back_to_back_ns < threshold_ns_;
    r.no_handshake = no_handshake();
    // Without the handshake's round trip, a spacing of a millisecond or more that is longer than
    // the data-to-ACK floor may be one flight a round trip (beside the receiver, at a tap) rather
    // than a link's frame time: the path is not shown full (evidence.h's mid-stream rule).
    r.path_full = path_full && !(r.no_handshake && r.back_to_back_ns >= kFarRttNs && r.back_to_back_ns > floor_ns());
    // The receiver's window by Little's law: a rate that carries the offered window every round
    // trip is bounded by it (T-RAT's receiver-window-limited test), wherever the capture was taken.
    const double rtt_s = static_cast<double>(std::max(floor_ns(), hs_rtt)) / 1e9;
    // Over several round trips only: a single reply's rate times the round trip is no flight.
    const bool window_bound = r.max_window_offered > 0 && r.loss_events == 0 && r.flight_waits >= 4 &&
                              static_cast<double>(busy) >= 4e9 * rtt_s &&
                              goodput * rtt_s >= 0.75 * static_cast<double>(r.max_window_offered);
    // Or most bursts of new data reached the offered window's edge (window_edge.h), on a path
    // that was not full.
    // (Segments a round trip apart fill no path: their spacing is the round trip, not a frame time.)
    const bool edge_bound = edge_.bound() && !(path_full && 2 * r.back_to_back_ns < hs_rtt);
    auto c = window_bound || edge_bound                                        ? core::LimitCause::receiver_window
             : flat && below_window && r.loss_events == 0 && !path_full ? core::LimitCause::send_buffer
                                                                               : core::LimitCause::network;
    // Mid-stream, the window's unknown scale fitted to where the sender stopped (scale_fit.h):
    // stops at the edge are the window's; a flat flight that leaves even the smallest window
    // the capture allows unused is the sender's buffer. Loss and a zero window are judged
    // as they are; a full path is the path's.
    if (r.no_handshake && r.loss_events == 0 && r.zero_window_acks == 0 && !r.path_full) {
      const ScaleFit::Verdict v = scale_fit_.verdict();
      if (v == ScaleFit::Verdict::window) {
        c = core::LimitCause::receiver_window;
        r.mid_stream_limit = c;
      } else if (v == ScaleFit::Verdict::not_window && flat) {
        c = core::LimitCause::send_buffer;
        r.mid_stream_limit = c;
      }
    }
    r.flight_cause = c;
    r.cause_ns[static_cast<std::size_t>(c)] += flight_ns_;
    r.cause_events[static_cast<std::size_t>(c)] += flight_events_;
    for (const Span& sp : timeline_) {
      const auto cause = sp.cause == kFlight ? c : static_cast<core::LimitCause>(sp.cause);
      if (!r.timeline.empty() && r.timeline.back().cause == cause && r.timeline.back().end_ns == sp.start) {
        r.timeline.back().end_ns = sp.end;
      } else {
        r.timeline.push_back({sp.start, sp.end, cause});
      }
    }
  }
  r.duration_ns = 0;
  for (std::int64_t t : r.cause_ns) r.duration_ns += t;
  r.goodput_bytes_per_s =
      r.duration_ns > 0 ? static_cast<double>(r.bytes_acked) * 1e9 / static_cast<double>(r.duration_ns) : 0.0;
  if (!delayed_ack_delays_.empty()) r.delayed_ack_timeout_ns = median_of(delayed_ack_delays_);
  const std::uint64_t prompt = r.prompt_acks_one + r.prompt_acks_two + r.prompt_acks_more;
  if (prompt < 4) {
    r.ack_every = AckEvery::unknown;
  } else if (2 * r.prompt_acks_two >= prompt) {
    r.ack_every = AckEvery::every_second_segment;
  } else if (2 * r.prompt_acks_one >= prompt) {
    r.ack_every = AckEvery::every_segment;
  } else {
    r.ack_every = AckEvery::other;
  }
  return r;
}

}  // namespace ackstall::pcap::detail
