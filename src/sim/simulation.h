// simulate(): the wiring behind run_experiment (experiment.h) — engine, link, the two TCP
// endpoints and the applications (src/sim/simulation.cc). Private to the sim library and its
// tests, with a debug hook: an EventObserver sees the simulation after every event
// (tests/sim/invariants_test.cc checks the endpoint invariants there).
#pragma once

#include "ackstall/sim/experiment.h"
#include "ackstall/sim/tcp_endpoint.h"

#include <cstdint>

namespace ackstall::sim {

inline constexpr int kSenderSide = 0, kReceiverSide = 1;  // endpoint index == direction of its data

// What an observer may look at between events.
class SimulationView {
 public:
  virtual const TcpEndpoint& endpoint(int side) const noexcept = 0;
  // The simulation's own timer (engine.h Timer), as armed by the endpoint's requests.
  virtual bool timer_armed(int side, TimerKind k) const noexcept = 0;
  virtual std::int64_t delivered() const noexcept = 0;  // bytes read by the receiving application
  virtual std::uint64_t events() const noexcept = 0;    // events processed so far
  virtual Nanos now() const noexcept = 0;

 protected:
  ~SimulationView() = default;
};

class EventObserver {
 public:
  virtual ~EventObserver() = default;
  // Once when the initiator has sent its SYN, then after every event.
  virtual void after_event(const SimulationView& sim) = 0;
};

// Runs `cfg` (which must pass validate()) to completion; run_experiment without the validation,
// plus the debug hook (nullptr: none; the hot loop then pays one branch per event).
Summary simulate(const ExperimentConfig& cfg, TraceSink* trace, EventObserver* observer);

}  // namespace ackstall::sim
