// The scp pipeline's applications (app_scp.h). Source: docs/STACKS.md §2 (Cygwin select.cc
// thread_pipe and its teardown, before and after the seed's fix).
#include "ackstall/sim/app_scp.h"

namespace ackstall::sim {

Nanos select_teardown_end(ScpConfig& scp, Nanos select_start, Nanos ready, Rng& rng) noexcept {
  if (scp.teardown == SelectTeardown::event) return ready + scp.event_wakeup.draw(rng);
  // sleep_loop: the thread notices the stop request when its current Sleep(quantum) ends.
  if (const auto fixed = scp.sleep_quantum.fixed()) {
    const std::int64_t q = fixed->count();
    std::int64_t k = ((ready - select_start).count() + q - 1) / q;
    if (k < 1) k = 1;  // the thread has just started its first sleep
    return select_start + *fixed * k;
  }
  // Each sleep its own draw, at least kMinRandomSleepQuantum (validate): the first always
  // happens, then sleeps until one ends at or after `ready`.
  Nanos end = select_start;
  do {
    end += max(scp.sleep_quantum.draw(rng), kMinRandomSleepQuantum);
  } while (end < ready);
  return end;
}

TtcpTransmitter make_scp_source(const TtcpTransmitterConfig& cfg, const core::SocketParams& chunk_params,
                                const ScpConfig& scp) {
  return TtcpTransmitter(cfg, chunk_params, scp.sender_cpu_ps_per_byte, scp.sender_output_buffer);
}

RxRequest ScpSink::run(Nanos now, bool ready, Rng& rng) noexcept {
  scheduled_ = false;
  if (selected_) {
    selected_ = false;
    return {.read = rx_.read_len};
  }
  // The sink loop calls select() on the socket and the pipe before every read.
  RxRequest r;
  if (!ready) {
    blocked_at_ = now;  // wait in select(); readable() ends it
    return r;
  }
  const Nanos end = select_teardown_end(scp_, now, now, rng);
  if (end > now) r.wake.add_stall(StallKind::select_teardown, now, end);
  selected_ = true;
  scheduled_ = true;
  r.wake.at = end;
  return r;
}

Nanos ScpSink::read_done(Nanos now, std::int64_t n, Rng& rng) noexcept {
  ++read_calls_;
  if (n == 0) {
    blocked_at_ = now;  // blocked in read() again (soreceive: lowat 1)
    return Nanos::never();
  }
  scheduled_ = true;
  return now + rx_.read_cost.draw(rng) + Nanos(scp_.receiver_cpu_ps_per_byte * n / 1000);
}

AppWake ScpSink::readable(Nanos now, Rng& rng) noexcept {
  AppWake w;
  if (scheduled_) return w;
  // Blocked in select() (or read()) since blocked_at_; the socket became readable now.
  const Nanos at = select_teardown_end(scp_, blocked_at_, now, rng);
  if (at > now) w.add_stall(StallKind::select_teardown, now, at);
  selected_ = true;
  scheduled_ = true;
  w.at = at + rx_.read_wakeup.draw(rng);
  return w;
}

}  // namespace ackstall::sim
