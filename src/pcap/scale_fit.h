// Internal: a capture started mid-stream (neither SYN) tells the receiver's window from the
// sender's buffer by where the sender stops (issue 37).
//
// Without the SYNs the window field is read unscaled: the window is raw << s for a shift s in
// 0..14 that the capture never shows, fixed for the connection (RFC 7323 §2.2, §2.3). Two rules
// of the sender pin it down:
// - the sender never sends beyond the right edge of the window it was offered, ACK number plus
//   window (RFC 9293 §3.8.6): a segment ending beyond ack + (raw << s) of the latest ACK seen
//   before it refutes s (the capture point sees that ACK no later than the sender does). The
//   smallest s that (nearly) no segment refutes gives the smallest window the capture allows;
// - a sender held by the window sends each round up to the edge; one held by its buffer stops
//   where its buffer is full, whatever the window.
// A stop is the last new-data segment before an idle gap of 1 ms or more that is also 4 times
// the spacing before it (one flight a round trip). Its edge is the one of the latest ACK seen
// before its burst's first segment: the sender had at least that edge (edges do not move left),
// at any vantage. Over 8 or more stops: when 9/10 or more of them come within a full segment of
// that edge at the smallest s, the window is what stopped them (no one buffer size stops a
// flight at a changing edge; at a constant one, only a buffer of that very size would); when
// 1/10 or fewer do, and 9/10 of 8 or more bursts of two or more segments leave a full segment or
// more of even the smallest window unused, it is not the window (a sender with data and a full
// segment of window sends it: RFC 9293 §3.8.6.2.1). (A lone segment a round trip apart may be a
// slow link's pace: it shows the edge only by reaching it.) Else, or fewer stops, undecided:
// the two look alike.
// Allocation-free: 15 counters per rule.
#pragma once

#include <array>
#include <cstdint>

namespace ackstall::pcap::detail {

class ScaleFit {
 public:
  enum class Verdict : std::uint8_t { undecided, window, not_window };

  static constexpr int kShifts = 15;  // RFC 7323 §2.3: at most 14
  static constexpr std::int64_t kMinIdleNs = 1'000'000;
  static constexpr std::uint64_t kMinStops = 8;

  // An ACK from the receiver: its relative ACK number and its window field as read (unscaled).
  void note_ack(std::int64_t ack, std::uint16_t raw) noexcept {
    ack_ = ack;
    raw_ = raw;
    have_ack_ = true;
  }

  // A segment of new data ending at data_end; full: a full segment's payload.
  void note_data(std::int64_t now, std::int64_t data_end, std::int64_t full) noexcept {
    if (!have_data_) {
      start_burst();
    } else if (const std::int64_t gap = now - last_ns_; gap >= kMinIdleNs && gap >= 4 * prev_gap_) {
      close_burst(full);
      start_burst();
    } else {
      prev_gap_ = gap;
    }
    if (have_ack_) {
      ++checked_;
      for (int s = 0; s < kShifts; ++s) {
        if (data_end > ack_ + (std::int64_t{raw_} << s)) ++beyond_[static_cast<std::size_t>(s)];
      }
    }
    have_data_ = true;
    last_ns_ = now;
    last_end_ = data_end;
    ++burst_segments_;
  }

  // The smallest shift (nearly) no segment refutes (beyond the edge for at most 1 in 100), or -1.
  int min_shift() const noexcept {
    for (int s = 0; s < kShifts; ++s) {
      if (100 * beyond_[static_cast<std::size_t>(s)] <= checked_) return s;
    }
    return -1;
  }
  std::uint64_t stops() const noexcept { return stops_; }
  // Stops within a full segment of their edge at shift s.
  std::uint64_t at_edge(int s) const noexcept { return reach_[static_cast<std::size_t>(s)]; }

  Verdict verdict() const noexcept {
    const int s = min_shift();
    if (s < 0 || stops_ < kMinStops) return Verdict::undecided;
    const std::uint64_t r = at_edge(s);
    if (10 * r >= 9 * stops_) return Verdict::window;
    if (10 * r <= stops_ && multi_stops_ >= kMinStops && 10 * short_[static_cast<std::size_t>(s)] >= 9 * multi_stops_) {
      return Verdict::not_window;
    }
    return Verdict::undecided;
  }

 private:
  void start_burst() noexcept {
    burst_has_edge_ = have_ack_;
    burst_ack_ = ack_;
    burst_raw_ = raw_;
    burst_segments_ = 0;
    prev_gap_ = 0;
  }
  // The burst ended at last_end_: a stop, if the edge it had is known.
  void close_burst(std::int64_t full) noexcept {
    if (!burst_has_edge_ || burst_segments_ == 0) return;
    ++stops_;
    if (burst_segments_ > 1) ++multi_stops_;
    for (int s = 0; s < kShifts; ++s) {
      if (last_end_ + full > burst_ack_ + (std::int64_t{burst_raw_} << s)) {
        ++reach_[static_cast<std::size_t>(s)];
      } else if (burst_segments_ > 1) {
        ++short_[static_cast<std::size_t>(s)];
      }
    }
  }

  std::int64_t ack_ = 0, burst_ack_ = 0, last_ns_ = 0, last_end_ = 0, prev_gap_ = 0;
  std::uint16_t raw_ = 0, burst_raw_ = 0;
  bool have_ack_ = false, have_data_ = false, burst_has_edge_ = false;
  std::uint64_t burst_segments_ = 0, checked_ = 0, stops_ = 0, multi_stops_ = 0;
  std::array<std::uint64_t, kShifts> beyond_{}, reach_{}, short_{};
};

}  // namespace ackstall::pcap::detail
