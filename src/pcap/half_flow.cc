#include "half_flow.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ackstall::pcap::detail {

HalfFlow::HalfFlow(SocketAddr sender, SocketAddr receiver, const ScanOptions& options)
    : threshold_ns_(options.threshold_ns), on_stall_(options.on_stall), keep_stalls_(options.keep_stalls), spill_stalls_(options.spill_stalls) {
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
  // The delayed-ACK timer is the median of the first 131,072 waits (1 MiB; flat beyond).
  if (s.kind == StallKind::delayed_ack && delayed_ack_delays_.size() < (std::size_t{1} << 17)) {
    delayed_ack_delays_.push_back(s.ack_delay_ns);
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
    rtt_done_ = true;
  }
}

void HalfFlow::on_sender(const TcpPacket& p, std::uint64_t frame) {
  note_handshake(p, true);
  const bool syn = p.has(tcp_flag::syn);
  if (syn) {
    sender_syn_ = true;
    sender_wscale_ = p.options.wscale;
    report_.mss = p.options.mss;
    report_.timestamps = p.options.timestamps.has_value();
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
  const std::int64_t start = relative(p.seq);
  const std::int64_t end = start + seg_len;
  if (any_tx_ && snd_max_ > snd_una_ && now - last_tx_ns_ >= threshold_ns_ && start < snd_max_) {
    record_stall({.start_ns = last_tx_ns_, .end_ns = now, .ack_delay_ns = 0,
                  .seq = static_cast<std::uint64_t>(std::max<std::int64_t>(snd_una_, 0)),
                  .outstanding = static_cast<std::uint64_t>(snd_max_ - snd_una_),
                  .segments = 0, .segment_frame = last_tx_frame_, .release_frame = frame,
                  .kind = StallKind::retransmission});
  }
  if (p.payload_len > 0) {
    const std::int64_t data_start = start + (syn ? 1 : 0);
    const std::int64_t data_end = data_start + p.payload_len;
    if (data_end > data_max_) {
      if (report_.data_segments > 0 && p.payload_len >= max_payload_ && last_data_full_) {
        // The first 131,072 spacings (1 MiB; flat beyond): their median is reported. The last 8
        // (a ring) tell whether a segment left paced behind the one before it.
        if (const std::int64_t gap = now - last_data_ns_; gap > 0) {
          if (full_spacings_.size() < (std::size_t{1} << 17)) full_spacings_.push_back(gap);
          recent_spacings_[recent_count_++ % recent_spacings_.size()] = gap;
        }
      }
      if (report_.data_segments > 0 && snd_una_ >= snd_max_) {
        note_idle(now - std::max(last_ack_ns_, last_data_ns_));
      }
      last_data_full_ = p.payload_len >= max_payload_;
      const std::int64_t since_last_data = now - last_data_ns_;
      last_data_ns_ = now;
      note_write(p, data_end - std::max(data_start, data_max_), since_last_data);
      data_max_ = data_end;
      report_.bytes_sent = static_cast<std::uint64_t>(data_max_);
      report_.data_segments++;
      if (report_.data_segments == 1) report_.first_data_ns = now;
    } else {
      report_.retransmitted_segments++;
    }
    max_payload_ = std::max(max_payload_, p.payload_len);
  }
  if (end > snd_max_) {
    flight_.push_back({end, now, frame});
    snd_max_ = end;
    report_.max_in_flight = std::max(report_.max_in_flight,
                                     static_cast<std::uint64_t>(std::max<std::int64_t>(snd_max_ - snd_una_, 0)));
  }
  any_tx_ = true;
  last_tx_ns_ = now;
  last_tx_frame_ = frame;
}

bool HalfFlow::paced_after_previous(std::int64_t since_last_data) const {
  // The median of the last (up to) 8 full-size spacings, once there are 2.
  const std::size_t n = std::min<std::size_t>(recent_count_, recent_spacings_.size());
  if (n < 2) return false;
  std::array<std::int64_t, 8> v = recent_spacings_;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.begin() + static_cast<std::ptrdiff_t>(n));
  return since_last_data <= *mid + *mid / 4;
}

void HalfFlow::note_write(const TcpPacket& p, std::int64_t new_bytes, std::int64_t since_last_data) {
  // Nagle (RFC 896; BSD tcp_output, docs/STACKS.md §0): a segment shorter than the MSS waits
  // while data is unacknowledged. Its trace: a sub-MSS segment in the middle of a write (the one
  // before it had no PSH) that left only once nothing was outstanding.
  // The full-segment payload: the announced MSS less the timestamps option (a full 1448-byte
  // segment under a 1460 MSS is not short).
  const std::optional<std::uint16_t> announced = receiver_mss_ ? receiver_mss_ : report_.mss;
  const bool ts = report_.timestamps && (!receiver_syn_ || receiver_timestamps_);
  const std::uint32_t mss = announced ? *announced - (ts ? 12u : 0u) : max_payload_;
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

void HalfFlow::on_receiver(const TcpPacket& p, std::uint64_t frame) {
  note_handshake(p, false);
  if (p.has(tcp_flag::syn)) {
    receiver_syn_ = true;
    receiver_wscale_ = p.options.wscale;
    receiver_mss_ = p.options.mss;
    receiver_timestamps_ = p.options.timestamps.has_value();
  } else if (p.options.timestamps) {
    receiver_timestamps_ = true;  // as above, from the receiver's side
  }
  if (!p.has(tcp_flag::ack) || p.has(tcp_flag::rst) || !have_base_) {
    window_raw_ = p.window;
    have_window_ = !p.has(tcp_flag::rst);
    return;
  }
  const std::int64_t now = p.time_ns;
  const std::int64_t a = relative(p.ack);
  if (a > snd_max_) {  // ACKs data the capture did not see
    snd_max_ = a;
    flight_.clear();
  }
  // A SYN's window is never scaled (RFC 7323 §2.2).
  const std::int64_t new_window = p.has(tcp_flag::syn) ? p.window : window_bytes(p.window);
  const std::int64_t old_window = window_bytes(window_raw_);
  const bool advanced = a > snd_una_;
  const bool opened = have_window_ && a == snd_una_ && new_window > old_window;
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
    const bool was_zero = have_window_ && window_raw_ == 0;
    const bool outstanding = snd_max_ > snd_una_;
    if (any_tx_ && (outstanding || was_zero) && now - last_tx_ns_ >= threshold_ns_) {
      StallKind kind = StallKind::slow_ack;
      const bool window_full =
          have_window_ && window_scale_known() && snd_una_ + old_window - snd_max_ < max_payload_;
      if (was_zero) {
        kind = StallKind::zero_window;
      } else if (!advanced) {
        kind = StallKind::window_update;
      } else if (window_full) {
        kind = StallKind::window_limited;
      } else if (segments == 1) {
        kind = StallKind::delayed_ack;
      }
      record_stall({.start_ns = last_tx_ns_, .end_ns = now, .ack_delay_ns = ack_delay,
                    .seq = static_cast<std::uint64_t>(std::max<std::int64_t>(snd_una_, 0)),
                    .outstanding = static_cast<std::uint64_t>(snd_max_ - snd_una_),
                    .segments = segments,
                    .segment_frame = newest_frame != 0 ? newest_frame : last_tx_frame_,
                    .release_frame = frame, .kind = kind});
    } else if (advanced && segments > 0 && ack_delay < threshold_ns_) {
      if (segments == 1) {
        report_.prompt_acks_one++;
      } else if (segments == 2) {
        report_.prompt_acks_two++;
      } else {
        report_.prompt_acks_more++;
      }
    }
    if (advanced) {
      snd_una_ = a;
      last_ack_ns_ = now;
      report_.bytes_acked = static_cast<std::uint64_t>(std::clamp<std::int64_t>(a, 0, data_max_));
      report_.last_ack_ns = now;
    }
  }
  window_raw_ = p.window;
  have_window_ = true;
  report_.max_window_offered = std::max<std::uint64_t>(report_.max_window_offered,
                                                       static_cast<std::uint64_t>(new_window));
}

void HalfFlow::note_idle(std::int64_t ns) {
  ++report_.idle_starts;
  const double us = static_cast<double>(std::max<std::int64_t>(ns, 1000)) / 1000.0;
  const auto bucket = static_cast<std::size_t>(4.0 * std::log2(us));
  ++idle_hist_[std::min(bucket, kIdleBuckets - 1)];
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

DirectionReport HalfFlow::report() const {
  DirectionReport r = report_;
  r.idle_before_send_ns = idle_median_ns();
  r.max_segment = max_payload_;
  // The sender's segments are bounded by the MSS the receiver announced (RFC 9293 3.7.1), and
  // carry the timestamps option (12 bytes of each) only when both SYNs offered it (RFC 7323 3.2).
  if (receiver_syn_) {
    if (receiver_mss_) r.mss = receiver_mss_;
    r.timestamps = r.timestamps && receiver_timestamps_;
  }
  if (r.mss) r.effective_mss = *r.mss - (r.timestamps ? 12u : 0u);
  r.receiver_wscale = receiver_wscale_;
  const std::int64_t span = r.last_ack_ns - r.first_data_ns;
  r.goodput_bytes_per_s = span > 0 ? static_cast<double>(r.bytes_acked) * 1e9 / static_cast<double>(span) : 0.0;
  if (!delayed_ack_delays_.empty()) r.delayed_ack_timeout_ns = median_of(delayed_ack_delays_);
  if (!full_spacings_.empty()) r.back_to_back_ns = median_of(full_spacings_);
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
