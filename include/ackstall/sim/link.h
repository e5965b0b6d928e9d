// ackstall/sim/link.h — the wire: framing arithmetic and one direction's drop-tail FIFO.
//
// A model with no engine access: the simulation asks it what to do and schedules the events.
// Full duplex = two independent LinkDirection objects (docs/STACKS.md §5).
//   wire bytes = max(ip_len + framing_overhead - frame_gap, min_frame) + frame_gap
//   tx time    = ceil(wire bytes * 8 * 1e9 / rate_bps) ns (100BASE-T 1538 bytes: 123040 ns)
// Frames leave in FIFO order; the queue limit counts the frame being transmitted.
// With LinkConfig::burst > 0 the direction is a token bucket (Linux sch_tbf over a veth): credit,
// in nanoseconds of line time, grows with elapsed time up to tx_time(burst); a frame leaves at
// once if the credit covers its tx time (and spends it), else when the credit reaches it.
#pragma once

#include "ackstall/sim/engine.h"
#include "ackstall/sim/config.h"
#include "ackstall/sim/delay.h"
#include "ackstall/sim/segment.h"

#include <cstdint>
#include <utility>

namespace ackstall::sim {

std::int64_t wire_bytes(const LinkConfig& link, std::int64_t ip_len) noexcept;
Nanos tx_time(const LinkConfig& link, std::int64_t wire) noexcept;
// Goodput ceiling of the link for `mss`-byte segments (with `tcp_options` bytes of options per
// segment): rate/8 * mss / wire bytes of a full frame, in MiB/s (§5: 11.32 for 1460 on 100BASE-T).
double link_ceiling_mib_s(const LinkConfig& link, std::int32_t mss, std::int32_t tcp_options);

struct InFlight {
  Segment seg;
  Nanos deliver_at;
};

class LinkDirection {
 public:
  // `lateness`: LinkConfig::shaper_lateness; `data_lateness`: LinkConfig::data_lateness where
  // this direction carries the data (none the other way).
  explicit LinkDirection(std::int32_t limit, Delay lateness = {}, Delay data_lateness = {})
      : limit_(limit), lateness_(std::move(lateness)), data_lateness_(std::move(data_lateness)) {}
  // False = dropped (queue full). True with `starts` = the link was idle: transmission starts now.
  bool enqueue(const Segment& s, bool& starts);
  const Segment& on_air() const noexcept { return queue_.front(); }
  // Transmission of the frame on air ended; it enters propagation. True when another frame
  // starts transmission now.
  bool tx_done(Nanos deliver_at);
  // When the frame whose transmission may start at `start` (tx time `tx`) has left: start + tx
  // on a wire (bank == 0), or per the token bucket of `bank` ns of credit (see above).
  // With `late`: a frame that waited for credit leaves that much later; the credit kept accruing
  // meanwhile (up to `bank`).
  Nanos finish(Nanos start, Nanos tx, Nanos bank, Nanos late = Nanos::zero()) noexcept;
  // finish() for the frame on air with the shaper's lateness drawn from `rng` when it waits for
  // credit; a data frame's data_lateness is drawn too, and arrival_lag() is then how much later
  // than `done + prop` it reaches the far end: never before the frame ahead of it.
  Nanos depart(Nanos start, Nanos tx, Nanos bank, Nanos prop, Rng& rng) noexcept;
  // The frame on air's extra delay to the far end (data_lateness, kept in order); tx_done()
  // clears it.
  Nanos arrival_lag() const noexcept { return lag_; }
  // Whether a frame starting at `start` must wait for credit (token bucket only).
  bool waits(Nanos start, Nanos tx, Nanos bank) const noexcept {
    return bank > Nanos::zero() && min(bank, credit_ + (start - credit_at_)) < tx;
  }
  InFlight pop_arrival();
  std::size_t queued() const noexcept { return queue_.size(); }
  std::size_t in_flight() const noexcept { return flight_.size(); }

 private:
  std::int32_t limit_;
  Ring<Segment> queue_;
  Ring<InFlight> flight_;
  Nanos credit_ = Nanos::zero();     // token bucket: banked line time
  Nanos credit_at_ = Nanos::zero();  // when credit_ was last brought up to date
  Delay lateness_, data_lateness_;
  Nanos lag_ = Nanos::zero();           // the frame on air's arrival lag
  Nanos last_arrival_ = Nanos::zero();  // the latest arrival at the far end's NIC (FIFO)
};

}  // namespace ackstall::sim
