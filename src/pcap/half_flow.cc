#include "half_flow.h"

#include <algorithm>
#include <limits>

namespace ackstall::pcap::detail {

HalfFlow::HalfFlow(SocketAddr sender, SocketAddr receiver, std::int64_t threshold_ns)
    : threshold_ns_(threshold_ns) {
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

void HalfFlow::record_stall(Stall s) {
  if (s.kind == StallKind::delayed_ack) delayed_ack_delays_.push_back(s.ack_delay_ns);
  report_.stall_counts[static_cast<std::size_t>(s.kind)]++;
  report_.stalled_ns += s.duration_ns();
  report_.stalls.push_back(s);
}

void HalfFlow::on_sender(const TcpPacket& p) {
  const bool syn = p.has(tcp_flag::syn);
  if (syn) {
    sender_syn_ = true;
    sender_wscale_ = p.options.wscale;
    report_.mss = p.options.mss;
    report_.timestamps = p.options.timestamps.has_value();
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
                  .segments = 0, .kind = StallKind::retransmission});
  }
  if (p.payload_len > 0) {
    const std::int64_t data_start = start + (syn ? 1 : 0);
    const std::int64_t data_end = data_start + p.payload_len;
    if (data_end > data_max_) {
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
    flight_.push_back({end, now});
    snd_max_ = end;
  }
  any_tx_ = true;
  last_tx_ns_ = now;
}

void HalfFlow::on_receiver(const TcpPacket& p) {
  if (p.has(tcp_flag::syn)) {
    receiver_syn_ = true;
    receiver_wscale_ = p.options.wscale;
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
    while (!flight_.empty() && flight_.front().end <= a) {
      ++segments;
      newest_sent = std::max(newest_sent, flight_.front().sent_ns);
      flight_.pop_front();
    }
    if (advanced && !flight_.empty() && a > snd_una_ && segments == 0) {  // part of one segment
      segments = 1;
      newest_sent = flight_.front().sent_ns;
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
                    .segments = segments, .kind = kind});
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
      report_.bytes_acked = static_cast<std::uint64_t>(std::clamp<std::int64_t>(a, 0, data_max_));
      report_.last_ack_ns = now;
    }
  }
  window_raw_ = p.window;
  have_window_ = true;
}

DirectionReport HalfFlow::report() const {
  DirectionReport r = report_;
  const std::int64_t span = r.last_ack_ns - r.first_data_ns;
  r.goodput_bytes_per_s = span > 0 ? static_cast<double>(r.bytes_acked) * 1e9 / static_cast<double>(span) : 0.0;
  if (!delayed_ack_delays_.empty()) {
    std::vector<std::int64_t> d = delayed_ack_delays_;
    const auto mid = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2);
    std::nth_element(d.begin(), mid, d.end());
    r.delayed_ack_timeout_ns = *mid;
  }
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
