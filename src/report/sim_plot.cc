#include "ackstall/report/sim_plot.h"

namespace ackstall::report {
namespace {

// Offset of `seq` from the first data byte (ISS + 1), modulo 2^32.
double rel(std::uint32_t seq, std::uint32_t iss) {
  return static_cast<double>(static_cast<std::uint32_t>(seq - iss - 1));
}

constexpr std::size_t kKinds = std::size(sim::kStallKinds);

// A stall kind's lane in the stall panel: its index in sim::kStallKinds.
std::size_t lane_of(sim::StallKind kind) {
  std::size_t lane = 0;
  while (lane < kKinds && sim::kStallKinds[lane] != kind) ++lane;
  return lane;
}

}  // namespace

void PlotTraceSink::on_frame(const sim::WireFrame& f) {
  if (f.dropped) return;
  const bool data_dir = f.dir == sim::Direction::sender_to_receiver;
  if (data_dir && (f.flags & sim::tcp_flag::syn) != 0) {
    iss_ = f.seq;
    have_iss_ = true;
    return;
  }
  if (!have_iss_) return;
  if (data_dir && f.payload_len > 0) {
    ts_.data.push_back({f.time.seconds(), rel(f.seq, iss_) + f.payload_len});
  } else if (!data_dir && (f.flags & sim::tcp_flag::ack) != 0 && (f.flags & sim::tcp_flag::syn) == 0) {
    ts_.acks.push_back({f.time.seconds(), rel(f.ack, iss_)});
  }
}

void PlotTraceSink::on_stall(const sim::StallMarker& stall) {
  ts_.stalls.push_back({stall.begin.seconds(), stall.end.seconds(), lane_of(stall.kind)});
}

core::Result<void> PlotTraceSink::render(const std::string& path, const std::string& title,
                                        const PlotWindow& window) const {
  TimeSequence ts = ts_;
  for (const sim::StallKind k : sim::kStallKinds) ts.lanes.emplace_back(core::label_of(k));
  return render_time_sequence(ts, path, title, window);
}

}  // namespace ackstall::report
