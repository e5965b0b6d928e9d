// ackstall/sim/app_scp.h — the scp-like pipeline's applications as sans-IO state machines (app.h).
//
// scp source: the ttcp transmitter loop (app_ttcp.h TtcpTransmitter) paying
//   ScpConfig::sender_cpu_ps_per_byte before each write (ssh encryption): make_scp_source().
// scp sink (ScpSink): calls select() on the socket and a pipe before every read, pays the select
//   teardown, then reads and pays receiver_cpu_ps_per_byte per byte read.
//
// Cygwin select() (select.cc, 2006; docs/STACKS.md §2): every call starts the pipe-polling
// thread (thread_pipe: check, Sleep(10), check ...), and cleanup (pipe_cleanup -> detach) waits
// for that thread to notice stop_thread_pipe, i.e. for its current 10 ms sleep to end
// (SelectTeardown::sleep_loop: a full quantum when data was already there). With the seed's fix
// (SetEvent(pi->wakeup); Cygwin since 2020: cygwait(pi->bye)) it exits after event_wakeup
// (SelectTeardown::event).
#pragma once

#include "ackstall/sim/app.h"
#include "ackstall/sim/app_ttcp.h"
#include "ackstall/sim/config.h"

#include <cstdint>

namespace ackstall::sim {

// When select(), called at `select_start`, returns for a socket that became readable at `ready`
// (>= select_start): the teardown described above. event: ready + a draw of event_wakeup;
// sleep_loop: the end of the sleep under way at `ready` (at least the first), each sleep a draw
// of sleep_quantum (a constant: the next multiple of it after select_start, no draw).
Nanos select_teardown_end(ScpConfig& scp, Nanos select_start, Nanos ready, Rng& rng) noexcept;

// The scp source: ttcp -t with the per-byte encryption cost.
TtcpTransmitter make_scp_source(const TtcpTransmitterConfig& cfg, const core::SocketParams& chunk_params,
                                const ScpConfig& scp);

// The scp sink; the same interface as TtcpReceiver (app_ttcp.h).
class ScpSink {
 public:
  ScpSink(const TtcpReceiverConfig& rx, const ScpConfig& scp) noexcept : rx_(rx), scp_(scp) {}

  // `ready`: data or EOF is waiting in the socket. read == 0: blocked in select() (wake.at never)
  // or select() returns at wake.at (after a select-teardown stall).
  RxRequest run(Nanos now, bool ready, Rng& rng) noexcept;
  Nanos read_done(Nanos now, std::int64_t n, Rng& rng) noexcept;  // never = blocked in read()
  AppWake readable(Nanos now, Rng& rng) noexcept;                 // the socket became readable

  bool scheduled() const noexcept { return scheduled_; }
  std::uint64_t read_calls() const noexcept { return read_calls_; }

 private:
  TtcpReceiverConfig rx_;
  ScpConfig scp_;
  bool scheduled_ = false;            // a run is pending
  bool selected_ = false;             // select() already returned for the next read
  Nanos blocked_at_ = Nanos::zero();  // since when the sink waits (in select() or read())
  std::uint64_t read_calls_ = 0;
};

}  // namespace ackstall::sim
