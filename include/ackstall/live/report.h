// ackstall/live/report.h — what `ackstall watch` prints: the live table (one line per
// connection, busiest first, the fixes of the problem ones below), one JSON object per line for
// scripts, and the summary. The JSON fields (docs/GUIDE.md "Watching a live host"):
//   t_s, local, remote, role ("sender" | "receiver"), interval_s, bytes_acked, bytes_received,
//   goodput_bytes_per_s, accounts [{cause, seconds, share}] (scan's "accounts": causes of
//   core/limit_cause.h, largest first), dominant, problem (null when none), problem_share,
//   severity ("none" | "minor" | "major"), ack_hold_ms (null unless the hold rule fired),
//   rtt_us, min_rtt_us, cwnd, snd_wnd (null before Linux 5.4), unacked, notsent_bytes, retransmitted, delivery_rate_bytes_per_s,
//   app_limited, ato_us, sndbuf and wmem_queued (null if unknown), peer, fixes; a summary line adds
//   "summary": true and "closed".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ackstall/live/trace_events.h"
#include "ackstall/live/tracker.h"

namespace ackstall::live {

// The table of ROWS (at most MAX_ROWS shown, the rest counted), with a heading line saying what
// is watched: T_S seconds in, WATCHED sockets, SKIPPED ones that closed mid-sample.
std::string table(const std::vector<ConnectionView>& rows, std::size_t max_rows, double t_s, std::size_t watched,
                  std::uint64_t skipped);
std::string json_line(const ConnectionView& v, double t_s, bool summary = false);
// --events: one stall as it happened (T_S seconds into the watch), in words or as a JSON line
// (fields: event "stall", t_s, local, remote, cause, wait_ms, send_length, outstanding).
std::string stall_line(const EventStall& s, double t_s);
std::string stall_json(const EventStall& s, double t_s);

// The summary: per connection its totals, where the time went, the verdict and fixes.
std::string summary_text(const std::vector<ConnectionView>& rows, double watched_s);

}  // namespace ackstall::live
