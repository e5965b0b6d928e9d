// run_experiment: wires engine, link, TCP endpoints and the applications together.
//
// Event kinds (the engine only sees integers):
//   kTxDone(dir)   a frame's last bit left the sending NIC
//   kArrive(dir)   a frame reaches the other host's TCP (propagation + its stack_latency)
//   kTimer(ep,k)   a TCP timer of endpoint ep (engine.h Timer: lazy moves, exact order)
//   kAppTx / kAppRx  the transmitting / receiving application runs
#include "ackstall/sim/experiment.h"

#include "ackstall/sim/engine.h"
#include "ackstall/sim/link.h"
#include "ackstall/sim/tcp_endpoint.h"

#include <array>
#include <stdexcept>

namespace ackstall::sim {

namespace {

enum : std::uint32_t { kTxDone = 1, kArrive = 2, kTimer = 3, kAppTx = 4, kAppRx = 5 };
constexpr int kSender = 0, kReceiver = 1;  // endpoint index == direction of its data

class Simulation {
 public:
  Simulation(const ExperimentConfig& cfg, TraceSink* trace)
      : cfg_(cfg),
        trace_(trace),
        rng_(cfg.seed),
        links_{LinkDirection(cfg.link.queue_limit_packets), LinkDirection(cfg.link.queue_limit_packets)},
        tick_phase_(rng_.uniform(cfg.receiver.ack.tick)),
        eps_{make_ep(cfg.sender, cfg.sender.ack.tick), make_ep(cfg.receiver, cfg.receiver.ack.tick)} {
    iss_[0] = static_cast<std::uint32_t>(rng_.next());
    iss_[1] = static_cast<std::uint32_t>(rng_.next());
    requested_ = cfg.app.transmitter.writes * cfg.app.transmitter.write_len;
    q_.reserve(64);
  }

  Summary run() {
    const int init = cfg_.initiator == Initiator::sender ? kSender : kReceiver;
    eps_[1 - init].listen();
    acts_.clear();
    eps_[init].connect(Nanos::zero(), acts_);
    apply(init);
    std::uint64_t events = 0;
    while (!q_.empty() && q_.next_time() <= cfg_.time_limit) {
      const Event e = q_.pop();
      ++events;
      dispatch(e);
      if (done()) break;
    }
    return summarize(events);
  }

 private:
  TcpEndpoint make_ep(const TcpProfile& p, Nanos /*tick*/) {
    EndpointParams ep;
    ep.profile = p;
    ep.link_mtu = cfg_.link.mtu;
    ep.tick_phase = tick_phase_;
    ep.ts_offset = static_cast<std::uint32_t>(rng_.next());
    return TcpEndpoint(ep);
  }

  bool done() const {
    // All data read, EOF seen (or no FIN requested) and nothing outstanding.
    if (delivered_ < requested_) return false;
    if (cfg_.app.transmitter.close_when_done && !eps_[kReceiver].eof()) return false;
    return eps_[kSender].all_acked();
  }

  void dispatch(const Event& e) {
    acts_.clear();
    switch (e.kind) {
      case kTxDone: on_tx_done(static_cast<int>(e.tag)); break;
      case kArrive: on_arrive(static_cast<int>(e.tag)); break;
      case kTimer: {
        const int ep = static_cast<int>(e.tag / kTimerKinds);
        const auto k = static_cast<TimerKind>(e.tag % kTimerKinds);
        if (!timers_[ep][e.tag % kTimerKinds].on_event(q_, e)) return;
        eps_[ep].on_timer(q_.now(), k, acts_);
        apply(ep);
        break;
      }
      case kAppTx: app_tx(); break;
      case kAppRx: app_rx(); break;
      default: break;
    }
  }

  // ---- link ----------------------------------------------------------------------------------
  void start_tx(int dir) {
    const Segment& s = links_[dir].on_air();
    const std::int64_t wire = wire_bytes(cfg_.link, s.ip_len());
    const Nanos t = tx_time(cfg_.link, wire);
    q_.schedule(q_.now() + t, kTxDone, static_cast<std::uint32_t>(dir));
    if (trace_) trace_frame(dir, s, wire, q_.now(), q_.now() + t + cfg_.link.prop_delay, false);
  }

  void enqueue(int dir, const Segment& s) {
    bool starts = false;
    if (!links_[dir].enqueue(s, starts)) {
      ++drops_;
      if (trace_) trace_frame(dir, s, wire_bytes(cfg_.link, s.ip_len()), q_.now(), q_.now(), true);
      return;
    }
    if (starts) start_tx(dir);
  }

  void on_tx_done(int dir) {
    const TcpProfile& dst = dir == kSender ? cfg_.receiver : cfg_.sender;
    const Nanos at = q_.now() + cfg_.link.prop_delay + dst.stack_latency;
    q_.schedule(at, kArrive, static_cast<std::uint32_t>(dir));
    if (links_[dir].tx_done(at)) start_tx(dir);
  }

  void on_arrive(int dir) {
    const InFlight f = links_[dir].pop_arrival();
    const int dst = 1 - dir;
    eps_[dst].on_segment(q_.now(), f.seg, acts_);
    apply(dst);
  }

  void trace_frame(int dir, const Segment& s, std::int64_t wire, Nanos t, Nanos arrival, bool dropped) {
    WireFrame f;
    f.time = t;
    f.arrival = arrival;
    f.dir = dir == kSender ? Direction::sender_to_receiver : Direction::receiver_to_sender;
    const auto& ad = cfg_.addressing;
    f.src_ip = dir == kSender ? ad.sender_ip : ad.receiver_ip;
    f.dst_ip = dir == kSender ? ad.receiver_ip : ad.sender_ip;
    f.src_port = dir == kSender ? ad.sender_port : ad.receiver_port;
    f.dst_port = dir == kSender ? ad.receiver_port : ad.sender_port;
    f.seq = iss_[dir] + static_cast<std::uint32_t>(s.seq);
    f.ack = s.has(tcp_flag::ack) ? iss_[1 - dir] + static_cast<std::uint32_t>(s.ack) : 0;
    f.flags = s.flags;
    f.window = s.wnd;
    f.options = s.opts;
    f.payload_len = static_cast<std::uint32_t>(s.len);
    f.ip_len = static_cast<std::uint32_t>(s.ip_len());
    f.wire_bytes = static_cast<std::uint32_t>(wire);
    f.retransmit = s.retransmit;
    f.dropped = dropped;
    trace_->on_frame(f);
  }

  // ---- actions -------------------------------------------------------------------------------
  void stall(const StallMarker& m) {
    StallTotal* t = nullptr;
    switch (m.kind) {
      case StallKind::delayed_ack: t = &stalls_.delayed_ack; break;
      case StallKind::nagle_hold: t = &stalls_.nagle_hold; break;
      case StallKind::quota_wait: t = &stalls_.quota_wait; break;
      case StallKind::wakeup: t = &stalls_.wakeup; break;
      case StallKind::select_teardown: t = &stalls_.select_teardown; break;
    }
    t->time += m.end - m.begin;
    ++t->count;
    if (trace_) trace_->on_stall(m);
  }

  void apply(int ep) {
    for (const Segment& s : acts_.out) enqueue(ep, s);
    for (const TimerRequest& r : acts_.timers) {
      Timer& timer = timers_[ep][static_cast<int>(r.kind)];
      if (r.at.is_never()) {
        timer.cancel();
      } else {
        timer.arm(q_, r.at, kTimer, static_cast<std::uint32_t>(ep * kTimerKinds + static_cast<int>(r.kind)));
      }
    }
    for (const StallMarker& m : acts_.stalls) stall(m);
    if (acts_.connected && ep == kSender) {
      connected_at_ = q_.now();
      tx_state_ = TxState::running;
      q_.schedule(q_.now(), kAppTx);
    }
    if (acts_.writable && ep == kSender) on_writable();
    if (acts_.readable && ep == kReceiver) on_readable();
    acts_.clear();
  }

  // ---- transmitting application (ttcp -t / scp source) ----------------------------------------
  enum class TxState : std::uint8_t { idle, running, wait_writable, wait_completion, done };

  void app_tx() {
    const auto& t = cfg_.app.transmitter;
    const Nanos now = q_.now();
    if (tx_state_ != TxState::running) return;
    if (write_left_ == 0) {
      if (writes_done_ == t.writes) {
        if (t.close_when_done) eps_[kSender].close(now, acts_);
        tx_state_ = TxState::done;
        apply(kSender);
        return;
      }
      ++writes_done_;
      write_left_ = t.write_len;
      piece_left_ = 0;
      const std::int64_t cpu_ps = cfg_.app.scp.enabled ? cfg_.app.scp.sender_cpu_ps_per_byte * t.write_len : 0;
      if (cpu_ps > 0) {  // scp source: encrypt the block before writing it
        q_.schedule(now + Nanos(cpu_ps / 1000), kAppTx);
        return;
      }
    }
    if (piece_left_ == 0) {
      // The simulated Cygwin calls the very chunk policy of core (seed's get_chunk).
      piece_left_ = static_cast<std::int64_t>(chunker_.next_chunk(static_cast<std::size_t>(write_left_)));
    }
    // Cygwin fhandler_socket::sendmsg (seed diff): WSASendTo; on WSAEWOULDBLOCK wait(evt) for
    // FD_WRITE and retry the same chunk; the patched loop moves to the next chunk on success.
    const SendOutcome o = eps_[kSender].send(now, piece_left_, t.nonblocking, acts_);
    ++send_calls_;
    if (o.would_block) {
      ++would_block_;
      tx_state_ = TxState::wait_writable;
      wait_since_ = now;
      apply(kSender);
      return;
    }
    piece_left_ -= o.accepted;
    write_left_ -= o.accepted;
    if (!o.completed) {
      tx_state_ = TxState::wait_completion;
      wait_since_ = now;
      apply(kSender);
      return;
    }
    q_.schedule(now + t.send_cost, kAppTx);
    apply(kSender);
  }

  void on_writable() {
    if (tx_state_ != TxState::wait_writable && tx_state_ != TxState::wait_completion) return;
    const auto& t = cfg_.app.transmitter;
    const Nanos now = q_.now();
    stall({StallKind::quota_wait, wait_since_, now});
    const Nanos lat = t.wakeup_latency + rng_.uniform(t.wakeup_jitter);
    if (lat > Nanos::zero()) stall({StallKind::wakeup, now, now + lat});
    tx_state_ = TxState::running;
    q_.schedule(now + lat, kAppTx);
  }

  // ---- receiving application (ttcp -r / scp sink) ---------------------------------------------
  // Cygwin select() (select.cc, 2006): every call starts the pipe-polling thread
  // (thread_pipe: check, Sleep(10), check ...), and cleanup (pipe_cleanup -> detach) waits for
  // that thread to notice stop_thread_pipe, i.e. for its current 10 ms sleep to end. With the
  // seed's fix (SetEvent(pi->wakeup); Cygwin since 2020: cygwait(pi->bye)) it exits at once.
  Nanos select_teardown_end(Nanos select_start, Nanos ready) const {
    const auto& scp = cfg_.app.scp;
    if (scp.teardown == SelectTeardown::event) return ready + scp.event_wakeup;
    const std::int64_t q = scp.sleep_quantum.count();
    std::int64_t k = ((ready - select_start).count() + q - 1) / q;
    if (k < 1) k = 1;  // the thread has just started its first sleep
    return select_start + scp.sleep_quantum * k;
  }

  void on_readable() {
    if (rx_scheduled_) return;
    const Nanos now = q_.now();
    Nanos at = now;
    if (cfg_.app.scp.enabled) {
      // Blocked in select() since rx_blocked_at_; the socket became readable now.
      at = select_teardown_end(rx_blocked_at_, now);
      if (at > now) stall({StallKind::select_teardown, now, at});
      rx_selected_ = true;
    }
    rx_scheduled_ = true;
    q_.schedule(at + cfg_.app.receiver.read_latency, kAppRx);
  }

  void app_rx() {
    rx_scheduled_ = false;
    const Nanos now = q_.now();
    const auto& r = cfg_.app.receiver;
    if (cfg_.app.scp.enabled && !rx_selected_) {
      // scp sink loop: select() on socket + pipe before every read.
      if (eps_[kReceiver].readable() == 0 && !eps_[kReceiver].eof()) {
        rx_blocked_at_ = now;  // wait in select(); on_readable finishes it
        return;
      }
      const Nanos end = select_teardown_end(now, now);
      if (end > now) stall({StallKind::select_teardown, now, end});
      rx_selected_ = true;
      rx_scheduled_ = true;
      q_.schedule(end, kAppRx);
      return;
    }
    rx_selected_ = false;
    const std::int64_t n = eps_[kReceiver].read(now, r.read_len, acts_);
    ++read_calls_;
    if (n == 0) {
      rx_blocked_at_ = now;  // blocked in read() again (soreceive: lowat 1)
      apply(kReceiver);
      return;
    }
    delivered_ += n;
    if (delivered_ >= requested_ && last_read_ == Nanos::zero()) last_read_ = now;
    Nanos cost = r.read_cost;
    if (cfg_.app.scp.enabled) cost += Nanos(cfg_.app.scp.receiver_cpu_ps_per_byte * n / 1000);
    rx_scheduled_ = true;
    q_.schedule(now + cost, kAppRx);
    apply(kReceiver);
  }

  Summary summarize(std::uint64_t events) const {
    Summary s;
    s.bytes_requested = requested_;
    s.bytes_delivered = delivered_;
    s.completed = delivered_ == requested_;
    s.duration = s.completed ? last_read_ : q_.now();
    s.connected_at = connected_at_;
    s.mss = eps_[kSender].maxseg();
    s.timestamps = eps_[kSender].timestamps();
    if (s.duration > Nanos::zero())
      s.goodput_mib_s = static_cast<double>(delivered_) / s.duration.seconds() / 1048576.0;
    s.ceiling_mib_s = link_ceiling_mib_s(cfg_.link, s.mss, s.timestamps ? 12 : 0);
    s.stalls = stalls_;
    const auto& cs = eps_[kSender].counters();
    const auto& cr = eps_[kReceiver].counters();
    s.data_segments = cs.data_segments;
    s.pure_acks = cr.pure_acks;
    s.window_updates = cr.window_updates;
    s.delayed_acks = cr.delayed_acks + cs.delayed_acks;
    s.retransmits = cs.retransmits + cr.retransmits;
    s.rto_fires = cs.rto_fires + cr.rto_fires;
    s.drops = drops_;
    s.send_calls = send_calls_;
    s.would_block = would_block_;
    s.read_calls = read_calls_;
    s.events = events;
    return s;
  }

  const ExperimentConfig& cfg_;
  TraceSink* trace_;
  EventQueue q_;
  Rng rng_;
  std::array<LinkDirection, 2> links_;
  Nanos tick_phase_;
  std::array<TcpEndpoint, 2> eps_;
  std::array<std::array<Timer, kTimerKinds>, 2> timers_{};
  std::array<std::uint32_t, 2> iss_{};
  Actions acts_;
  core::ChunkPolicy chunker_{
      cfg_.app.transmitter.chunking,
      core::SocketParams{.sndbuf = cfg_.sender.send_buffer.size,
                         .mss = cfg_.app.transmitter.chunk_mss_guess > 0 ? cfg_.app.transmitter.chunk_mss_guess
                                                                         : cfg_.link.mtu - 40,  // seed update_mss
                         .stream = true}};
  StallTotals stalls_{};
  std::int64_t requested_ = 0, delivered_ = 0;
  std::int64_t writes_done_ = 0, write_left_ = 0, piece_left_ = 0;
  TxState tx_state_ = TxState::idle;
  Nanos wait_since_ = Nanos::zero();
  bool rx_scheduled_ = false;
  bool rx_selected_ = false;  // scp: select() already returned for the next read
  Nanos rx_blocked_at_ = Nanos::zero();
  Nanos last_read_ = Nanos::zero();
  Nanos connected_at_ = Nanos::zero();
  std::uint64_t drops_ = 0, send_calls_ = 0, would_block_ = 0, read_calls_ = 0;
};

}  // namespace

core::Result<Summary> run_experiment(const ExperimentConfig& cfg, TraceSink* trace) {
  if (auto ok = validate(cfg); !ok) return tl::unexpected(ok.error());
  Simulation sim(cfg, trace);
  return sim.run();
}

}  // namespace ackstall::sim
