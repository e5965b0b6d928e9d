#include "ackstall/ttcp/ack_test.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <thread>

#include "ackstall/core/delayed_ack_timers.h"

namespace ackstall::ttcp {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxSegments = 3;
constexpr auto kAckTimeout = std::chrono::seconds(2);

core::Result<void> send_all(net::SocketOps& ops, net::NativeSocket s, std::span<const std::byte> data) {
  while (!data.empty()) {
    const core::ByteSlice slice{data.data(), data.size()};
    auto n = ops.send(s, std::span(&slice, 1), net::SendFlags::none);
    if (!n) return core::fail("ack test: send: " + n.error().message());
    data = data.subspan(*n);
  }
  return {};
}

// Waits until everything sent is ACKed: the time it took, from `from`.
core::Result<double> wait_all_acked(net::SocketOps& ops, net::NativeSocket s, Clock::time_point from) {
  for (;;) {
    auto info = ops.tcp_info(s);
    if (!info) return core::fail("ack test: " + info.error().message());
    if (info->in_flight < 0) return core::fail("ack test: this OS does not report unACKed data in TCP_INFO");
    const auto now = Clock::now();
    if (info->in_flight == 0) return std::chrono::duration<double, std::milli>(now - from).count();
    if (now - from > kAckTimeout) return core::fail("ack test: data still unACKed after 2 s");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A write's ACK counts as delayed above this (a round trip on a LAN is well below it).
constexpr double kDelayedMs = 5.0;

// The median of every delay above kDelayedMs (0: none): the receiver's delayed-ACK timer.
double delayed_median(const AckTestResult& r) {
  std::vector<double> all;
  for (const auto& v : r.ms) std::copy_if(v.begin(), v.end(), std::back_inserter(all), [](double x) { return x >= kDelayedMs; });
  return median(all);
}

std::string verdict_for(const AckTestResult& r) {
  std::string delayed, prompt;
  for (std::size_t k = 0; k < r.median_ms.size(); ++k) {
    std::string& list = r.median_ms[k] >= kDelayedMs ? delayed : prompt;
    list += fmt::format("{}{}", list.empty() ? "" : ", ", k + 1);
  }
  const double timer = r.delayed_ms;
  if (delayed.empty()) {
    return fmt::format("this receiver ACKs every write at once (a lone segment: median {:.2f} ms): no "
                       "delayed-ACK stall to expect from it", r.median_ms[0]);
  }
  if (prompt.empty()) {
    return fmt::format("this receiver delays the ACK of every write ~{:.0f} ms, even of two segments: stretch "
                       "ACKs or a delayed ACK per write", timer);
  }
  if (delayed == "1, 3" && prompt == "2") {
    return fmt::format("this receiver delays a lone segment's ACK ~{:.0f} ms and ACKs two segments at once: a "
                       "write of an odd segment count waits for its last one", timer);
  }
  return fmt::format("this receiver delays the ACK of {}-segment writes ~{:.0f} ms and ACKs {}-segment writes "
                     "at once: the reader's timing decides (a Linux receiver also ACKs when a read opens its "
                     "window wide enough, STACKS §4)", delayed, timer, prompt);
}

}  // namespace

core::Result<AckTestResult> run_ack_test(net::SocketOps& ops, net::NativeSocket s, std::int64_t mss, int rounds) {
  if (mss <= 0) return core::fail("ack test: unknown MSS");
  AckTestResult r;
  r.mss = mss;
  r.ms.resize(kMaxSegments);
  if (auto ok = ops.set_option(s, net::SocketOption::tcp_nodelay, 1); !ok) {
    return core::fail("ack test: TCP_NODELAY: " + ok.error().message());
  }
  std::vector<std::byte> buf(static_cast<std::size_t>(mss) * 32);
  // Warm-up: a Linux receiver ACKs its first segments at once (quick-ACK credit, STACKS §4).
  const auto warm = Clock::now();
  if (auto ok = send_all(ops, s, buf); !ok) return tl::unexpected(ok.error());
  if (auto ok = wait_all_acked(ops, s, warm); !ok) return tl::unexpected(ok.error());
  // The MSS as it is now: Linux bounds it by half the peer's largest window, which grows during
  // the warm-up (loopback: 32741 at connect, 65483 after).
  if (auto info = ops.tcp_info(s); info && info->snd_mss > 0 && info->snd_mss <= mss * 32) {
    r.mss = mss = info->snd_mss;
  }
  for (int round = 0; round < rounds; ++round) {
    for (int k = 1; k <= kMaxSegments; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const auto t0 = Clock::now();
      if (auto ok = send_all(ops, s, std::span(buf).first(static_cast<std::size_t>(k * mss))); !ok) {
        return tl::unexpected(ok.error());
      }
      auto took = wait_all_acked(ops, s, t0);
      if (!took) return tl::unexpected(took.error());
      r.ms[static_cast<std::size_t>(k - 1)].push_back(*took);
    }
  }
  for (const auto& v : r.ms) r.median_ms.push_back(median(v));
  r.delayed_ms = delayed_median(r);
  r.verdict = verdict_for(r);
  if (r.delayed_ms > 0) r.fits = core::delayed_ack_timer_fits(static_cast<std::int64_t>(r.delayed_ms * 1e6));
  return r;
}

}  // namespace ackstall::ttcp
