// ackstall/sim/ideal_send_backlog.h — Windows' ideal send backlog (ISB) as the simulated Winsock
// sender's quota when the application leaves SO_SNDBUF unset (dynamic send buffering).
//
// The rule, each part with its source (docs/STACKS.md §1 "Dynamic send buffering"):
//   * Dynamic send buffering (Windows 7 / Server 2008 R2 on) is on unless the application sets
//     SO_SNDBUF [V Microsoft Learn, "SIO_IDEAL_SEND_BACKLOG_QUERY", Remarks].
//   * The ISB is "a function of the bandwidth-delay product of the TCP connection and the
//     receiver's advertised receive window (and partly the amount of congestion in the
//     network)", from 0 to 16 MB [V same page]. The send buffer limit (SO_SNDBUF) is what AFD
//     keeps outstanding; an application that follows the ISB sets SO_SNDBUF to it [V same page;
//     curl lib/cf-socket.c win_update_sndbuf_size].
//   * [I] With dynamic send buffering the AFD quota is the ISB, as if the application followed
//     it: the Learn page does not say so in these words (OBS Studio PR #5687 reads it that way;
//     libfilezilla's socket::ideal_send_buffer_size comment says Windows does not do it by
//     itself, and curl issue #2224 measured an unset SO_SNDBUF slower than 64 KiB on Windows 7).
//   * [I] The estimator (Windows' is unpublished): BDP = the largest delivery rate of the last
//     kRateWindow samples x the smoothed RTT, one sample per timed segment (delivered bytes from
//     its send to its ACK over that time: the delivery-rate sample of BBR,
//     draft-cheng-iccrg-delivery-rate-estimation; its windowed max, BBR's BtlBw filter over 10
//     round trips); ISB = kGain x min(BDP, peer window) (twice the window, as Linux
//     tcp_sndbuf_expand sizes a send buffer from cwnd); the result held in [initial, 16 MiB].
//   * [I] Before the first sample and as its floor, the quota is `initial` (default 65536:
//     Windows 10's default SO_SNDBUF, §1 [I]; OBS PR #5687: "the default send buffer is usually
//     64k already").
// None of the [I] parts can be checked here: this project has no Windows machine, and Wine does
// not emulate AFD (§2). docs/WINDOWS.md lists what a Windows user can run to check them.
//
// Pure value type, deterministic: the same samples give the same quota.
#pragma once

#include "ackstall/sim/time.h"

#include <array>
#include <cstdint>

namespace ackstall::sim {

class IdealSendBacklog {
 public:
  static constexpr std::int64_t kMax = std::int64_t{16} << 20;  // "0 to a maximum of 16 megabytes"
  static constexpr std::int64_t kGain = 2;                       // [I] Linux tcp_sndbuf_expand
  static constexpr std::size_t kRateWindow = 10;                 // [I] BBR BtlBw filter, 10 rounds

  explicit IdealSendBacklog(std::int64_t initial) noexcept : initial_(initial), isb_(clamp(initial)) {}

  // One delivery-rate sample: `delivered` bytes were ACKed between the timed segment's send and
  // its ACK, `interval` later; `srtt` is the smoothed RTT after this sample, `peer_window` the
  // largest window the receiver has offered. Returns the new ISB.
  std::int64_t sample(std::int64_t delivered, Nanos interval, Nanos srtt, std::int64_t peer_window) noexcept;

  std::int64_t value() const noexcept { return isb_; }
  // Bytes per second of the largest rate sample in the window (0 before any sample).
  double max_rate() const noexcept;
  std::int64_t samples() const noexcept { return count_; }

 private:
  std::int64_t clamp(std::int64_t v) const noexcept;

  std::int64_t initial_;
  std::int64_t isb_;
  std::array<double, kRateWindow> rates_{};  // bytes/s, ring
  std::int64_t count_ = 0;
};

}  // namespace ackstall::sim
