// The wiring behind run_experiment (simulation.h).
//
// Event kinds (the engine only sees integers):
//   kTxDone(dir)   a frame's last bit left the sending NIC
//   kArrive(dir)   a frame reaches the other host's TCP (propagation + its stack_latency, in order)
//   kTimer(ep,k)   a TCP timer of endpoint ep (engine.h Timer: lazy moves, exact order)
//   kAppTx / kAppRx  the transmitting / receiving application runs (app_ttcp.h, app_scp.h)
//
// The class has internal linkage and its per-event members are `inline` on purpose: the
// compiler then inlines the per-event path (dispatch and its handlers) into run()'s loop, as
// when they were defined in the class body (out of line they cost ~10 % more instructions).
#include "simulation.h"

#include "cause_accounts_frame.h"

#include "ackstall/core/link_framing.h"
#include "ackstall/sim/app_scp.h"
#include "ackstall/sim/app_ttcp.h"
#include "ackstall/sim/engine.h"
#include "ackstall/sim/link.h"

#include <array>
#include <variant>

namespace ackstall::sim {

namespace {

enum : std::uint32_t { kTxDone = 1, kArrive = 2, kTimer = 3, kAppTx = 4, kAppRx = 5 };
constexpr int kSender = kSenderSide, kReceiver = kReceiverSide;

TcpEndpoint make_endpoint(const TcpProfile& p, const LinkConfig& link, Nanos tick_phase, Rng& rng) {
  EndpointParams ep;
  ep.profile = p;
  ep.link_mtu = link.mtu;
  ep.tick_phase = tick_phase;
  ep.ts_offset = static_cast<std::uint32_t>(rng.next());
  return TcpEndpoint(ep);
}

core::SocketParams chunk_params(const ExperimentConfig& cfg) {
  const std::int32_t guess = cfg.app.transmitter.chunk_mss_guess;
  return {.sndbuf = cfg.sender.send_buffer.size,
          .mss = guess > 0 ? guess : core::mss_for_mtu(cfg.link.mtu),  // seed update_mss
          .stream = true,
          // Only AFD charges per whole send (docs/STACKS.md §1): what `auto` reads.
          .per_send_quota = cfg.sender.send_buffer.kind == SendBufferKind::afd,
          .allow_raise_sndbuf = cfg.app.transmitter.allow_raise_sndbuf,
          .minshall_nagle = cfg.sender.nagle == NagleKind::minshall,
          // size = "unset": the quota follows the ideal send backlog, not sndbuf (cygwin-patch).
          .sndbuf_set = !cfg.sender.send_buffer.unset};
}

TtcpTransmitter make_transmitter(const ExperimentConfig& cfg) {
  if (cfg.app.scp.enabled) return make_scp_source(cfg.app.transmitter, chunk_params(cfg), cfg.app.scp);
  return TtcpTransmitter(cfg.app.transmitter, chunk_params(cfg));
}

std::variant<TtcpReceiver, ScpSink> make_receiver(const AppConfig& app) {
  if (app.scp.enabled) return ScpSink(app.receiver, app.scp);
  return TtcpReceiver(app.receiver);
}

class Simulation final : public SimulationView {
 public:
  Simulation(const ExperimentConfig& cfg, TraceSink* trace, EventObserver* observer);
  Summary run();

  const TcpEndpoint& endpoint(int side) const noexcept override { return eps_[side]; }
  bool timer_armed(int side, TimerKind k) const noexcept override {
    return timers_[side][static_cast<int>(k)].armed();
  }
  std::int64_t delivered() const noexcept override { return delivered_; }
  std::uint64_t events() const noexcept override { return events_; }
  Nanos now() const noexcept override { return q_.now(); }

 private:
  using Receiver = std::variant<TtcpReceiver, ScpSink>;

  void start();
  bool done() const;
  void dispatch(const Event& e);
  void start_tx(int dir);
  void enqueue(int dir, const Segment& s);
  void on_tx_done(int dir);
  void on_arrive(int dir);
  void trace_frame(int dir, const Segment& s, std::int64_t wire, Nanos t, Nanos arrival, bool dropped);
  void stall(const StallMarker& m);
  void wake(const AppWake& w, std::uint32_t kind);
  void apply(int ep);
  void app_tx();
  void app_rx();
  Summary summary() const;

  const ExperimentConfig& cfg_;
  TraceSink* trace_;
  // The trace sink when it is the cause accounts alone (`ackstall sim`'s default): fed each frame
  // straight from the segment (CauseAccountant::on_wire, inline), no WireFrame built and no
  // virtual call; trace_ then takes the stalls only. Null otherwise.
  CauseAccountant* causes_;
  EventObserver* observer_;
  EventQueue q_;
  Rng rng_;
  Rng link_rng_;  // the shaper's lateness: a stream of its own (the apps' draws stay as they were)
  Rng host_rng_;  // the hosts' per-frame costs (stack_latency, per_segment_cost): a stream of their own
  // Per side: the TcpProfile's per-frame delays, as drawn (a Delay keeps its trace position).
  std::array<Delay, 2> stack_latency_, per_segment_cost_;
  // Per direction: when the receiving stack handles the latest frame sent that way (FIFO).
  std::array<Nanos, 2> handled_{Nanos::zero(), Nanos::zero()};
  std::array<LinkDirection, 2> links_;
  Nanos link_bank_;  // link.burst as line time (0: a wire); fixed for the run
  Nanos tick_phase_;
  std::array<TcpEndpoint, 2> eps_;
  std::array<std::array<Timer, kTimerKinds>, 2> timers_{};
  std::array<std::uint32_t, 2> iss_{};
  Actions acts_;
  TtcpTransmitter tx_;
  Receiver rx_;
  StallTotals stalls_{};
  StallTotals short_waits_{};
  std::int64_t requested_ = 0, delivered_ = 0;
  Nanos last_read_ = Nanos::zero();
  Nanos connected_at_ = Nanos::zero();
  std::uint64_t drops_ = 0, events_ = 0;
};

Simulation::Simulation(const ExperimentConfig& cfg, TraceSink* trace, EventObserver* observer)
    : cfg_(cfg),
      trace_(trace),
      causes_(dynamic_cast<CauseAccountant*>(trace)),  // CauseAccountant is final: exactly one
      observer_(observer),
      rng_(cfg.seed),
      link_rng_(cfg.seed ^ 0x6c696e6b6a697474ULL),  // "linkjitt"
      host_rng_(cfg.seed ^ 0x686f7374636f7374ULL),  // "hostcost"
      stack_latency_{cfg.sender.stack_latency, cfg.receiver.stack_latency},
      per_segment_cost_{cfg.sender.per_segment_cost, cfg.receiver.per_segment_cost},
      // The data flows from the sender: its direction carries link.data_lateness.
      links_{LinkDirection(cfg.link.queue_limit_packets, cfg.link.shaper_lateness, cfg.link.data_lateness),
             LinkDirection(cfg.link.queue_limit_packets, cfg.link.shaper_lateness)},
      link_bank_(cfg.link.burst > 0 ? tx_time(cfg.link, cfg.link.burst) : Nanos::zero()),
      // RNG draws, in this order: bsd_tick phase, the endpoints' timestamp offsets, the ISSs.
      tick_phase_(rng_.uniform(cfg.receiver.ack.tick)),
      eps_{make_endpoint(cfg.sender, cfg.link, tick_phase_, rng_),
           make_endpoint(cfg.receiver, cfg.link, tick_phase_, rng_)},
      tx_(make_transmitter(cfg)),
      rx_(make_receiver(cfg.app)) {
  iss_[0] = static_cast<std::uint32_t>(rng_.next());
  iss_[1] = static_cast<std::uint32_t>(rng_.next());
  requested_ = cfg.app.transmitter.writes * cfg.app.transmitter.write_len;
  q_.reserve(64);
}

Summary Simulation::run() {
  start();
  EventObserver* const observer = observer_;  // one copy for the loop: nothing may change it
  if (observer) observer->after_event(*this);
  while (!q_.empty() && q_.next_time() <= cfg_.time_limit) {
    const Event e = q_.pop();
    ++events_;
    dispatch(e);
    if (observer) observer->after_event(*this);
    if (done()) break;
  }
  return summary();
}

inline void Simulation::start() {
  const int init = cfg_.initiator == Initiator::sender ? kSender : kReceiver;
  eps_[1 - init].listen();
  acts_.clear();
  eps_[init].connect(Nanos::zero(), acts_);
  apply(init);
}

inline bool Simulation::done() const {
  // All data read, EOF seen (or no FIN requested) and nothing outstanding.
  if (delivered_ < requested_) return false;
  if (cfg_.app.transmitter.close_when_done && !eps_[kReceiver].eof()) return false;
  return eps_[kSender].all_acked();
}

inline void Simulation::dispatch(const Event& e) {
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

// ---- link ------------------------------------------------------------------------------------

inline void Simulation::start_tx(int dir) {
  const Segment& s = links_[dir].on_air();
  const std::int64_t wire = wire_bytes(cfg_.link, s.ip_len());
  // The sending host's per-frame cost (TcpProfile::per_segment_cost: send-completion handling
  // serial with the NIC) precedes the frame's serialisation; one draw per frame, the next frame
  // starting only after this one has left (frames keep their order).
  const Nanos host = per_segment_cost_[dir].draw(host_rng_);
  const Nanos t = tx_time(cfg_.link, wire);
  const Nanos start = q_.now() + host;
  const Nanos done = links_[dir].depart(start, t, link_bank_, cfg_.link.prop_delay, link_rng_);
  q_.schedule(done, kTxDone, static_cast<std::uint32_t>(dir));
  // Timestamped when it starts to leave: its serialisation on a wire; at once through a bucket
  // with credit (then it leaves no later than `done`).
  if (trace_) {
    if (causes_ != nullptr) {
      // What trace_frame would report, on the fields the accounts read of each side's frames
      // (CauseAccountant::on_wire): the sender's at its first bit out, with its sequence number,
      // length and retransmit mark; the receiver's at its last bit in, with its ACK and window.
      // Each call expands on_wire for its side alone.
      if (dir == kSender) {
        causes_->on_wire(true, max(q_.now() + host, done - t).count(), q_.now().count(),
                         iss_[kSender] + static_cast<std::uint32_t>(s.seq), 0, static_cast<std::uint32_t>(s.len), 0,
                         s.flags, s.retransmit, s.opts.wscale);
      } else {
        causes_->on_wire(false, (done + cfg_.link.prop_delay + links_[dir].arrival_lag()).count(), q_.now().count(), 0,
                         s.has(tcp_flag::ack) ? iss_[kSender] + static_cast<std::uint32_t>(s.ack) : 0, 0, s.wnd, s.flags,
                         false, s.opts.wscale);
      }
    } else {
      trace_frame(dir, s, wire, max(q_.now() + host, done - t), done + cfg_.link.prop_delay + links_[dir].arrival_lag(), false);
    }
  }
}

inline void Simulation::enqueue(int dir, const Segment& s) {
  bool starts = false;
  if (!links_[dir].enqueue(s, starts)) {
    ++drops_;
    // A dropped frame never reached the wire: the accounts skip it (on_frame).
    if (trace_ && causes_ == nullptr) trace_frame(dir, s, wire_bytes(cfg_.link, s.ip_len()), q_.now(), q_.now(), true);
    return;
  }
  if (starts) start_tx(dir);
}

inline void Simulation::on_tx_done(int dir) {
  // The receiving host's stack_latency, drawn per frame. A stack handles a NIC's frames in ring
  // order (Linux: the NAPI poll walks the RX ring in order, net/core/dev.c napi_poll; TcpProfile::
  // stack_latency): a frame is handled no earlier than the one ahead of it, so a long draw holds
  // back the frames behind it and never reorders them. With a constant latency the handling
  // times already rise with the departures (the link is FIFO, arrival_lag() keeps its order).
  const int dst = dir == kSender ? kReceiver : kSender;
  const Nanos lat = stack_latency_[dst].draw(host_rng_);
  const Nanos at = max(handled_[dir], q_.now() + cfg_.link.prop_delay + lat + links_[dir].arrival_lag());
  handled_[dir] = at;
  q_.schedule(at, kArrive, static_cast<std::uint32_t>(dir));
  if (links_[dir].tx_done(at)) start_tx(dir);
}

inline void Simulation::on_arrive(int dir) {
  const InFlight f = links_[dir].pop_arrival();
  const int dst = 1 - dir;
  eps_[dst].on_segment(q_.now(), f.seg, acts_);
  apply(dst);
}

void Simulation::trace_frame(int dir, const Segment& s, std::int64_t wire, Nanos t, Nanos arrival,
                             bool dropped) {
  WireFrame f;
  f.time = t;
  f.arrival = arrival;
  f.reported = q_.now();
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

// ---- actions ---------------------------------------------------------------------------------

inline void Simulation::stall(const StallMarker& m) {
  StallTotals& totals = m.end - m.begin > Nanos(cfg_.stall_threshold) ? stalls_ : short_waits_;
  StallTotal* t = totals.of(m.kind);  // a kind the simulator marks (core::kSimulatorStallKinds)
  t->time += m.end - m.begin;
  ++t->count;
  if (trace_) trace_->on_stall(m);
}

inline void Simulation::wake(const AppWake& w, std::uint32_t kind) {
  for (std::uint8_t i = 0; i < w.stall_count; ++i) stall(w.stalls[i]);
  if (w.runs()) q_.schedule(w.at, kind);
}

inline void Simulation::apply(int ep) {
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
    // The application lets the policy raise SO_SNDBUF before its first send (KB823764's second
    // workaround, docs/STACKS.md §8), knowing the window of the peer's SYN-ACK.
    if (cfg_.app.transmitter.allow_raise_sndbuf && !cfg_.app.scp.enabled)
      eps_[kSender].set_send_buffer_size(tx_.raise_sndbuf(eps_[kSender].snd_wnd()));
    q_.schedule(tx_.connected(q_.now()), kAppTx);
  }
  if (acts_.writable && ep == kSender) wake(tx_.writable(q_.now(), rng_), kAppTx);
  if (acts_.readable && ep == kReceiver) wake(std::visit([&](auto& r) { return r.readable(q_.now(), rng_); }, rx_), kAppRx);
  acts_.clear();
}

// ---- applications ----------------------------------------------------------------------------

inline void Simulation::app_tx() {
  const Nanos now = q_.now();
  const TxRequest r = tx_.run(now);
  // A timed run (app.transmitter.duration) ends after the writes it started.
  if (tx_.done()) requested_ = tx_.writes_started() * cfg_.app.transmitter.write_len;
  switch (r.kind) {
    case TxKind::none: return;
    case TxKind::sleep: q_.schedule(r.at, kAppTx); return;
    case TxKind::close:
      eps_[kSender].set_nodelay(tx_.nodelay());
      eps_[kSender].close(now, acts_);
      apply(kSender);
      return;
    case TxKind::send: {
      // The policy's TCP_NODELAY for the span of a split send (core/chunk_policy.h robust).
      eps_[kSender].set_nodelay(tx_.nodelay());
      const SendOutcome o = eps_[kSender].send(now, r.len, r.nonblocking, acts_);
      const Nanos next = tx_.sent(now, o, rng_);
      // TCP_NODELAY set while the write waits on a full quota: pushes what Nagle holds.
      if (tx_.nodelay() && !eps_[kSender].nodelay()) eps_[kSender].push_nodelay(now, acts_);
      if (!next.is_never()) q_.schedule(next, kAppTx);
      apply(kSender);
      return;
    }
  }
}

inline void Simulation::app_rx() {
  const Nanos now = q_.now();
  TcpEndpoint& ep = eps_[kReceiver];
  // ready = data or EOF waiting; computed inside the visit so that ttcp, which ignores it, skips it.
  const RxRequest r = std::visit([&](auto& app) { return app.run(now, ep.readable() > 0 || ep.eof(), rng_); }, rx_);
  if (r.read == 0) {
    wake(r.wake, kAppRx);
    return;
  }
  const std::int64_t n = ep.read(now, r.read, acts_);
  delivered_ += n;
  if (n > 0 && delivered_ >= requested_ && last_read_ == Nanos::zero()) last_read_ = now;
  const Nanos next = std::visit([&](auto& app) { return app.read_done(now, n, rng_); }, rx_);
  if (!next.is_never()) q_.schedule(next, kAppRx);
  apply(kReceiver);
}

Summary Simulation::summary() const {
  Summary s;
  s.bytes_requested = requested_;
  s.bytes_delivered = delivered_;
  s.completed = delivered_ == requested_;
  s.duration = s.completed ? last_read_ : q_.now();
  s.connected_at = connected_at_;
  s.mss = eps_[kSender].maxseg();
  s.timestamps = eps_[kSender].timestamps();
  s.sndbuf = eps_[kSender].send_buffer().config().size;
  s.chunk_params = tx_.chunk_params();
  if (s.duration > Nanos::zero())
    s.goodput_mib_s = static_cast<double>(delivered_) / s.duration.seconds() / 1048576.0;
  s.ceiling_mib_s = link_ceiling_mib_s(cfg_.link, s.mss, core::per_segment_option_bytes(s.timestamps));
  s.stalls = stalls_;
  s.short_waits = short_waits_;
  const auto& cs = eps_[kSender].counters();
  const auto& cr = eps_[kReceiver].counters();
  s.data_segments = cs.data_segments;
  s.pure_acks = cr.pure_acks;
  s.window_updates = cr.window_updates;
  s.delayed_acks = cr.delayed_acks + cs.delayed_acks;
  s.retransmits = cs.retransmits + cr.retransmits;
  s.rto_fires = cs.rto_fires + cr.rto_fires;
  s.drops = drops_;
  s.send_calls = tx_.send_calls();
  s.would_block = tx_.would_block();
  s.read_calls = std::visit([](const auto& app) { return app.read_calls(); }, rx_);
  s.events = events_;
  return s;
}

}  // namespace

Summary simulate(const ExperimentConfig& cfg, TraceSink* trace, EventObserver* observer) {
  Simulation sim(cfg, trace, observer);
  return sim.run();
}

}  // namespace ackstall::sim
