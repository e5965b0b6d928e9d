// ackstall/live/tracker.h — the connections of successive samples (sock_diag.h), each interval
// attributed (attribution.h) and added up per connection for the summary. Pure: the caller
// samples, the tracker only compares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ackstall/live/attribution.h"
#include "ackstall/live/tcp_sample.h"

namespace ackstall::live {

struct ConnectionView {
  Sample now;           // the latest sample
  Attribution last;     // the last interval
  Attribution total;    // every interval since the connection was first seen
  Verdict verdict;      // on `last` (update) or on `total` (summary)
  bool closed = false;  // gone from the latest sample (summary only)
};

// The key of the events' per-socket times that update() takes: "local remote" (the addresses as
// the events and the samples both print them).
inline std::string events_key(const std::string& local, const std::string& remote) { return local + " " + remote; }

// Busiest first: bytes moved (acknowledged + received) in the interval, then the socket's key.
bool busier(const ConnectionView& a, const ConnectionView& b);

class Tracker {
 public:
  // EVENTS: --events times loss recoveries, so the sampled estimate of loss is never kept.
  explicit Tracker(bool events = false) : events_(events) {}
  // One round of samples (every socket the filter passed): the connections that sent or received
  // in the interval since the previous round, busiest first. The first round only remembers; a
  // socket opened after it is attributed from its start (its counters began at zero).
  // STALLS: --events' delayed-ACK stall time per "local remote" since the previous round
  // (apply_event_stalls); LOSSES: its loss recovery time, likewise (apply_event_loss).
  std::vector<ConnectionView> update(std::vector<Sample> samples,
                                     const std::unordered_map<std::string, std::int64_t>& stalls = {},
                                     const std::unordered_map<std::string, std::int64_t>& losses = {});
  // Every connection that sent or received while watched, with the verdict on its total.
  std::vector<ConnectionView> summary() const;
  std::size_t watched() const noexcept { return connections_.size(); }

 private:
  struct Entry {
    ConnectionView view;
    bool seen = false;
    std::int64_t pending_stall_ns = 0;  // --events stall time not yet placed in an interval
    std::int64_t pending_loss_ns = 0;   // --events recovery time, likewise
    std::int64_t busy_carry_ns = 0;     // attribute()'s chronograph carry
  };
  std::unordered_map<std::uint64_t, Entry> connections_;  // by socket cookie
  bool events_ = false;
  std::optional<std::int64_t> last_round_ns_;  // the previous round's time
};

}  // namespace ackstall::live
