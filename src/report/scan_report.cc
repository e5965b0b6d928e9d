#include "ackstall/report/scan_report.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <ctime>
#include <iterator>
#include <cstdint>
#include <vector>
#include <string_view>
#include <map>
#include <unordered_set>

#include "ackstall/core/limit_cause.h"
#include "ackstall/core/plural.h"
#include "ackstall/core/goodput_text.h"
#include "ackstall/core/scaled_decimal.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/triage.h"

namespace ackstall::report {
namespace {

double seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }
double millis(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string direction_name(const pcap::DirectionReport& d) {
  return fmt::format("{} -> {}", pcap::format_socket_addr(d.sender), pcap::format_socket_addr(d.receiver));
}

// A request/response link (pcap::PeerStallLink), or null.
nlohmann::json link_json(const std::optional<pcap::PeerStallLink>& l) {
  if (!l) return nullptr;
  return {{"cause", std::string(core::to_string(l->cause))},
          {"waits", l->waits},
          {"linked_waits", l->linked_waits},
          {"wait_s", seconds(l->wait_ns)},
          {"overlap_s", seconds(l->overlap_ns)}};
}

nlohmann::json diagnosis_json(const pcap::Diagnosis& g) {
  nlohmann::json accounts = nlohmann::json::array();
  for (const auto& a : g.accounts) {
    accounts.push_back({{"cause", std::string(core::to_string(a.cause))}, {"seconds", seconds(a.ns)}, {"share", a.share}});
  }
  const auto cause = [](const std::optional<core::LimitCause>& c) {
    return c ? nlohmann::json(std::string(core::to_string(*c))) : nlohmann::json();
  };
  return {{"accounts", accounts},
          {"dominant", cause(g.dominant)},
          {"problem", cause(g.problem)},
          {"healthy", g.healthy},
          {"goodput_without_problem_bytes_per_s", g.problem ? nlohmann::json(g.goodput_without_problem) : nlohmann::json()},
          {"sender_stack", {{"family", std::string(pcap::to_string(g.sender_stack.family))}, {"evidence", g.sender_stack.evidence}}},
          {"receiver_stack", {{"family", std::string(pcap::to_string(g.receiver_stack.family))}, {"evidence", g.receiver_stack.evidence}}},
          {"capture_warnings", g.capture_warnings},
          {"mss", g.mss},
          {"in_flight_limit", g.in_flight_limit},
          {"window_offered", g.window_offered},
          {"writes", g.writes},
          {"write_size", g.write_size ? nlohmann::json(*g.write_size) : nlohmann::json()},
          {"segments_per_write", g.segments_per_write ? nlohmann::json(*g.segments_per_write) : nlohmann::json()},
          {"timer_fits", g.timer_fits},
          {"too_little", g.too_little ? nlohmann::json(*g.too_little) : nlohmann::json()},

          {"chunk_plan", g.chunk_plan},
          {"evidence", g.evidence},
          {"mechanism", g.mechanism},
          {"fixes", g.fixes},
          {"would_not_help", g.would_not_help}};
}

// The markers standing for direction `d`'s stall list and capture `s`'s flow list in the document
// write_scan_json streams.
std::string stalls_marker(const pcap::DirectionReport& d) {
  return fmt::format("\u0001stalls:{}", static_cast<const void*>(&d));
}
std::string flows_marker(const pcap::FileScan& s) {
  return fmt::format("\u0001flows:{}", static_cast<const void*>(&s));
}

// Writes one stall's line into a fixed buffer and appends it once: a compiled format string per
// stall spent four fifths of its time in the shortest round trip of its three doubles, and an
// append per field in fmt's buffer growth checks (callgrind: 2,500 then 2,300 instructions a
// stall; docs/BENCHMARKS.md "scan vs tshark").
class StallLine {
 public:
  void lit(std::string_view text) {
    std::memcpy(p_, text.data(), text.size());
    p_ += text.size();
  }
  void uint(std::uint64_t v) { p_ = core::write_decimal(v, p_); }
  // A duration in ns as seconds (scale 9) or milliseconds (scale 6): the text fmt's "{}" gives
  // the double, exact where that is the same text (core/scaled_decimal.h), else the double's.
  void scaled(std::int64_t ns, int scale) {
    if (const std::size_t n = core::write_scaled_decimal(ns, scale, p_); n > 0) {
      p_ += n;
    } else {
      p_ = fmt::format_to_n(p_, static_cast<std::size_t>(end() - p_), FMT_COMPILE("{}"),
                            scale == 9 ? seconds(ns) : millis(ns)).out;
    }
  }
  std::string_view text() const { return {line_, static_cast<std::size_t>(p_ - line_)}; }

 private:
  char* end() { return line_ + sizeof line_; }
  // The field names (~140), six numbers of at most 20 digits, three of at most 24, a kind name.
  char line_[512];
  char* p_ = line_;
};

// One stall as a JSON object (the fields of pcap::Stall; times from the capture's start), appended
// to `buf`.
void append_stall(fmt::memory_buffer& buf, const pcap::Stall& s, std::int64_t t0) {
  StallLine l;
  l.lit("{\"time_s\": ");
  l.scaled(s.start_ns - t0, 9);
  l.lit(", \"duration_ms\": ");
  l.scaled(s.duration_ns(), 6);
  l.lit(", \"ack_delay_ms\": ");
  l.scaled(s.ack_delay_ns, 6);
  l.lit(", \"seq\": ");
  l.uint(s.seq);
  l.lit(", \"outstanding\": ");
  l.uint(s.outstanding);
  l.lit(", \"segments\": ");
  l.uint(s.segments);
  l.lit(", \"segment_frame\": ");
  l.uint(s.segment_frame);
  l.lit(", \"release_frame\": ");
  l.uint(s.release_frame);
  l.lit(", \"kind\": \"");
  l.lit(pcap::to_string(s.kind));
  l.lit("\"}");
  const std::string_view t = l.text();
  buf.append(t.data(), t.data() + t.size());
}

// A direction's stall list as a JSON array — those in memory, then those spilled to disk — streamed
// to `out` in blocks of about 64 KiB.
void write_stalls(std::ostream& out, const pcap::DirectionReport& d, std::int64_t t0) {
  fmt::memory_buffer buf;
  buf.push_back('[');
  bool first = true;
  const auto one = [&](const pcap::Stall& s) {
    buf.append(std::string_view(first ? "\n  " : ",\n  "));
    first = false;
    append_stall(buf, s, t0);
    if (buf.size() >= 65536) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  };
  for (const pcap::Stall& s : d.stalls) one(s);
  if (d.spilled) d.spilled->for_each(one);
  if (!first) buf.push_back('\n');
  buf.push_back(']');
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

// A direction's report; its stall list is a marker string (stalls_marker) that write_scan_json
// replaces with the stalls, streamed.
nlohmann::json to_json(const pcap::DirectionReport& d) {
  nlohmann::json kinds = nlohmann::json::object();
  for (const pcap::StallKind k : core::kScannerStallKinds)
    kinds[std::string(pcap::to_string(k))] = d.stall_counts[static_cast<std::size_t>(k)];
  return {{"sender", pcap::format_socket_addr(d.sender)},
          {"receiver", pcap::format_socket_addr(d.receiver)},
          {"data_segments", d.data_segments},
          {"retransmitted_segments", d.retransmitted_segments},
          {"retransmissions", d.retransmissions},
          {"spurious_resends", d.spurious_resends},
          {"bytes_sent", d.bytes_sent},
          {"bytes_acked", d.bytes_acked},
          {"duration_s", seconds(d.duration_ns)},
          {"time_by_cause_s", [&d] {
             nlohmann::json t = nlohmann::json::object();
             for (core::LimitCause c : core::kLimitCauses) t[std::string(core::to_string(c))] = seconds(d.cause_ns[static_cast<std::size_t>(c)]);
             return t;
           }()},
          {"rtt_floor_ms", d.rtt_floor_ns ? nlohmann::json(millis(*d.rtt_floor_ns)) : nlohmann::json()},
          {"uncaptured_bytes", d.uncaptured_bytes},
          {"starts_mid_stream", d.starts_mid_stream},
          {"acked_before_data_bytes", d.acked_before_data_bytes},
          {"zero_window_before_data_s", static_cast<double>(d.zero_window_before_data_ns) / 1e9},
          {"sequence_holes", d.sequence_holes},
          {"loss_events", d.loss_events},
          {"unseen_tail_losses", d.unseen_tail_losses},
          {"zero_window_acks", d.zero_window_acks},
          {"peer_data_bytes", d.peer_data_bytes},
          {"sender_ttl", d.sender_ttl},
          {"receiver_ttl", d.receiver_ttl},
          {"goodput_bytes_per_s", d.goodput_bytes_per_s},
          {"mss", d.effective_mss ? nlohmann::json(*d.effective_mss) : nlohmann::json()},
          {"announced_mss", d.mss ? nlohmann::json(*d.mss) : nlohmann::json()},
          {"timestamps", d.timestamps},
          {"handshake_rtt_ms", d.handshake_rtt_ns ? nlohmann::json(millis(*d.handshake_rtt_ns)) : nlohmann::json()},
          {"stall_count", d.stall_count},
          {"stalls_by_kind", kinds},
          {"stalled_s", seconds(d.stalled_ns)},
          {"delayed_ack_timeout_ms",
           d.delayed_ack_timeout_ns ? nlohmann::json(millis(*d.delayed_ack_timeout_ns)) : nlohmann::json()},
          {"ack_every", std::string(pcap::to_string(d.ack_every))},
          {"prompt_acks", {{"one_segment", d.prompt_acks_one},
                           {"two_segments", d.prompt_acks_two},
                           {"more", d.prompt_acks_more}}},
          {"no_handshake", d.no_handshake},
          {"path_full", d.path_full},
          {"mid_stream_limit", d.mid_stream_limit ? nlohmann::json(std::string(core::to_string(*d.mid_stream_limit)))
                                                  : nlohmann::json()},
          {"flight_cause", std::string(core::to_string(d.flight_cause))},
          {"flight", {{"waits", d.flight_waits},
                      {"per_round_trip", d.flight_per_round},
                      {"p25", d.flight_p25},
                      {"p50", d.flight_p50},
                      {"p90", d.flight_p90}}},
          {"max_in_flight", d.max_in_flight},
          {"max_window_offered", d.max_window_offered},
          {"nagle_holds", d.nagle_holds},
          {"nagle_hold_frame", d.nagle_holds > 0 ? nlohmann::json(d.nagle_hold_frame) : nlohmann::json()},
          {"wait_before_data_s", d.wait_before_data_ns ? nlohmann::json(seconds(*d.wait_before_data_ns)) : nlohmann::json()},
          {"peer_spoke_first", d.peer_spoke_first},
          {"duplicate_frames", d.duplicate_frames},
          {"forwarded_copies", d.forwarded_copies},
          {"earlier_connections", d.earlier_connections},
          {"waits_on_peer", link_json(d.waits_on_peer)},
          {"delays_peer", link_json(d.delays_peer)},
          {"idle_starts", d.idle_starts},
          {"idle_before_send_ms",
           d.idle_before_send_ns ? nlohmann::json(millis(*d.idle_before_send_ns)) : nlohmann::json()},
          {"diagnosis", diagnosis_json(pcap::diagnose(d))},
          {"stalls", stalls_marker(d)}};
}

std::string ack_every_text(const pcap::DirectionReport& d) {
  const std::uint64_t prompt = d.prompt_acks_one + d.prompt_acks_two + d.prompt_acks_more;
  const std::string counts = fmt::format("{} of {} prompt ACKs cover 1 segment, {} cover 2, {} more",
                                         d.prompt_acks_one, prompt, d.prompt_acks_two, d.prompt_acks_more);
  switch (d.ack_every) {
    case pcap::AckEvery::every_second_segment: return "ACKs every second segment (" + counts + ")";
    case pcap::AckEvery::every_segment: return "ACKs every segment (" + counts + ")";
    case pcap::AckEvery::other: return "ACKs stretch over several segments (" + counts + ")";
    case pcap::AckEvery::unknown: break;
  }
  return "ACK pattern unknown (" + counts + ")";
}

void print_direction(const ScanPrint& o, const pcap::FileScan& scan, const pcap::DirectionReport& d,
                     std::ostream& out) {
  const std::int64_t span = d.duration_ns;
  const pcap::Diagnosis g = pcap::diagnose(d);
  fmt::print(out, "\nflow {}\n", direction_name(d));
  // Segments resent several times (timeout backoff): how many, and how many retransmissions.
  const std::string resent =
      d.retransmissions > d.retransmitted_segments
          ? fmt::format("{} resent, {} retransmissions", d.retransmitted_segments, d.retransmissions)
          : fmt::format("{} retransmitted", d.retransmitted_segments);
  // Resends a D-SACK showed spurious (RFC 2883): said only where there were some.
  const std::string spurious =
      d.spurious_resends > 0 ? fmt::format(", {} spurious resend{} (D-SACK)", d.spurious_resends,
                                           d.spurious_resends == 1 ? "" : "s")
                             : "";
  fmt::print(out, "  data: {} bytes in {} ({}{}), {} acked\n", d.bytes_sent, core::plural(d.data_segments, "segment"),
             resent, spurious, d.bytes_acked);
  const std::string path = fmt::format(
      "MSS {}, timestamps {}{}", d.effective_mss ? fmt::format("{} (announced {})", *d.effective_mss, *d.mss) : "unknown",
      d.timestamps ? "on" : "off",
      d.handshake_rtt_ns ? fmt::format(", handshake RTT {:.3f} ms", millis(*d.handshake_rtt_ns)) : "");
  if (span > 0) {
    fmt::print(out, "  goodput: {:.1f} KB/s ({:.3f} MiB/s) over {:.3f} s; {}\n", d.goodput_bytes_per_s / 1e3,
               d.goodput_bytes_per_s / (1 << 20), seconds(span), path);
  } else {
    fmt::print(out, "  goodput: unknown (no span of this transfer with its ACKs in the capture); {}\n", path);
  }
  for (const auto& w : g.capture_warnings) fmt::print(out, "  warning: {}\n", w);
  if (!g.accounts.empty()) {
    fmt::print(out, "  where the time went:\n");
    for (const auto& a : g.accounts) {
      if (a.share < 0.0005) continue;  // rounds to 0.0 %
      fmt::print(out, "    {:5.1f} %  {:9.3f} s  {:<16} {}\n", 100 * a.share, seconds(a.ns), core::to_string(a.cause),
                 core::describe(a.cause));
    }
  }
  std::string kinds;
  for (std::size_t k = 0; k < pcap::kStallKindCount; ++k) {
    if (d.stall_counts[k] == 0) continue;
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", d.stall_counts[k],
                         pcap::to_string(static_cast<pcap::StallKind>(k)));
  }
  fmt::print(out, "  stalls: {}{}, stalled {:.3f} s{}\n", d.stall_count,
             kinds.empty() ? "" : " (" + kinds + ")", seconds(d.stalled_ns),
             span > 0 ? fmt::format(" ({:.1f}% of the transfer)",
                                    std::min(100.0, 100.0 * static_cast<double>(d.stalled_ns) / static_cast<double>(span)))
                      : "");
  fmt::print(out, "  receiver: {}; {}\n",
             d.delayed_ack_timeout_ns ? fmt::format("delayed-ACK hold ~{:.1f} ms beyond the path (median of {})",
                                                    millis(*d.delayed_ack_timeout_ns), d.stall_counts[0])
                                      : std::string("no delayed-ACK stall"),
             ack_every_text(d));
  const std::size_t shown = std::min(d.stalls.size(), o.max_stalls);
  for (std::size_t i = 0; i < shown; ++i) {
    const pcap::Stall& s = d.stalls[i];
    fmt::print(out,
               "    #{:<4} t={:.6f} s  seq={:<10} {:9.3f} ms  {:<14} ({} segment{}, {} bytes outstanding; "
               "frame {} waited, frame {} released)\n",
               i + 1, seconds(s.start_ns - scan.first_ns), s.seq, millis(s.duration_ns()),
               pcap::to_string(s.kind), s.segments, s.segments == 1 ? "" : "s", s.outstanding,
               s.segment_frame, s.release_frame);
  }
  if (shown < d.stall_count) {
    fmt::print(out, "    ... {} more (--max-stalls, or --json for all)\n", d.stall_count - shown);
  }
  fmt::print(out, "  diagnosis:\n");
  for (const auto& e : g.evidence) fmt::print(out, "    - {}\n", e);
  fmt::print(out, "  verdict: {}\n", g.mechanism);
  for (std::size_t i = 0; i < g.fixes.size(); ++i) fmt::print(out, "    fix {}: {}\n", i + 1, g.fixes[i]);
  for (const auto& w : g.would_not_help) fmt::print(out, "    would not help: {}\n", w);
}

std::string connection_name(const pcap::TriageRow& r) { return direction_name(r.judged()); }

// The triage table: one row a judged connection, worst first (pcap/triage.h).
void print_triage(const pcap::Triage& t, std::size_t shown, std::ostream& out) {
  fmt::print(out, "\ntriage: {} judged, {} with a problem", core::plural(t.rows.size(), "connection"), t.problems());
  if (t.tiny > 0) fmt::print(out, "; {} under {} data segments: not judged", t.tiny, pcap::kTriageMinSegments);
  if (t.no_data > 0) fmt::print(out, "; {} without data", t.no_data);
  fmt::print(out, "\n");
  if (t.rows.empty()) return;
  std::size_t width = 10;
  for (std::size_t i = 0; i < shown; ++i) width = std::max(width, connection_name(t.rows[i]).size());
  fmt::print(out, "  {:>4}  {:<{}}  {:>12}  {:>9}  {:>11}  {:<16} {:<16} {}\n", "#", "connection (data direction)", width,
             "bytes", "duration", "goodput", "limited by", "problem", "time lost");
  for (std::size_t i = 0; i < shown; ++i) {
    const pcap::TriageRow& r = t.rows[i];
    const std::string lost =
        r.problem() ? fmt::format("{:.3f} s ({:.0f} %)", seconds(r.lost_ns),
                                  r.duration_ns > 0 ? 100.0 * static_cast<double>(r.lost_ns) / static_cast<double>(r.duration_ns) : 0.0)
                    : "-";
    fmt::print(out, "  {:>4}  {:<{}}  {:>12}  {:>7.3f} s  {:>11}  {:<16} {:<16} {}\n", i + 1, connection_name(r), width,
               r.bytes, seconds(r.duration_ns), core::format_goodput(r.goodput_bytes_per_s),
               r.dominant ? core::to_string(*r.dominant) : "-", r.problem_cause ? core::to_string(*r.problem_cause) : "healthy",
               lost);
  }
  if (shown < t.rows.size()) fmt::print(out, "  ... {} more (--top N, --all)\n", t.rows.size() - shown);
}

nlohmann::json triage_row_json(const pcap::TriageRow& r) {
  const auto cause = [](const std::optional<core::LimitCause>& c) {
    return c ? nlohmann::json(std::string(core::to_string(*c))) : nlohmann::json();
  };
  return {{"sender", pcap::format_socket_addr(r.judged().sender)},
          {"receiver", pcap::format_socket_addr(r.judged().receiver)},
          {"bytes", r.bytes},
          {"data_segments", r.data_segments},
          {"duration_s", seconds(r.duration_ns)},
          {"goodput_bytes_per_s", r.goodput_bytes_per_s},
          {"dominant", cause(r.dominant)},
          {"problem", cause(r.problem_cause)},
          {"lost_s", seconds(r.lost_ns)}};
}

// The triage's summary; its "connections" (the rows) is the marker `rows`.
nlohmann::json triage_json(const pcap::Triage& t, const std::string& rows) {
  return {{"judged", t.rows.size()},
          {"problems", t.problems()},
          {"not_judged_min_segments", pcap::kTriageMinSegments},
          {"not_judged", t.tiny},
          {"without_data", t.no_data},
          {"connections", rows}};
}

}  // namespace

std::string skipped_summary(const pcap::FileScan& scan) {
  std::vector<std::pair<std::uint64_t, std::string>> v;
  for (const auto& [reason, n] : scan.skipped) v.emplace_back(n, reason);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [n, reason] : v) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, reason);
  return s;
}

namespace {

nlohmann::json flow_to_json(const pcap::FlowReport& f) {
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& d : f.directions) dirs.push_back(to_json(d));
  return {{"a", pcap::format_socket_addr(f.key.a)},
          {"b", pcap::format_socket_addr(f.key.b)},
          {"packets", f.packets},
          {"directions", dirs}};
}

// What the markers in a document stand for (write_filled): the keys are the marker strings.
struct Marked {
  std::map<std::string, std::pair<const pcap::DirectionReport*, std::int64_t>> stalls;  // and the capture's t0
  std::map<std::string, const pcap::FileScan*> flows;
  std::map<std::string, pcap::Triage> rows;
};

// One capture as JSON; its "flows", its triage's rows and each direction's "stalls" are markers,
// noted in `marked`, that write_filled fills.
nlohmann::json scan_to_json(const ScanPrint& o, const pcap::FileScan& scan, Marked& marked) {
  const std::string flows = flows_marker(scan), rows = fmt::format("\u0001rows:{}", static_cast<const void*>(&scan));
  marked.flows[flows] = &scan;
  for (const auto& f : scan.flows) {
    for (const auto& d : f.directions) marked.stalls[stalls_marker(d)] = {&d, scan.first_ns};
  }
  const pcap::Triage& triage = marked.rows[rows] = pcap::triage(scan.flows);
  nlohmann::json j = {{"file", scan.name},
          {"format", scan.stats ? "live" : scan.pcapng ? "pcapng" : "pcap"},
          {"threshold_ms", core::stall_threshold_ms(o.threshold)},
          {"records", scan.records},
          {"matched_records", scan.matched},
          {"tcp_packets", scan.tcp_packets},
          {"skipped", scan.skipped},
          {"cut_short", scan.cut_short ? nlohmann::json(*scan.cut_short) : nlohmann::json()},
          {"syn_options_cut", scan.syn_options_cut},
          {"capture_drops", scan.capture_drops ? nlohmann::json(*scan.capture_drops) : nlohmann::json()},
          {"flows", flows},
          {"triage", triage_json(triage, rows)}};
  if (scan.stats) {
    j["capture_stats"] = {{"received", scan.stats->received},
                          {"dropped", scan.stats->dropped},
                          {"if_dropped", scan.stats->if_dropped}};
  }
  return j;
}


void write_filled(std::string_view doc, const Marked& marked, std::ostream& out);

// Writes a list of `n` elements in place of a marker whose line opens with `indent` spaces, as
// dump(2) would print the list there: element(i) is built, printed and let go in turn, so that a
// list of 20,000 connections is never a document whole in memory.
template <class Element>
void write_list(std::size_t n, std::size_t indent, const Element& element, const Marked& marked, std::ostream& out) {
  if (n == 0) {
    out << "[]";
    return;
  }
  const std::string pad(indent + 2, ' ');
  out << '[';
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    out << (i == 0 ? "\n" : ",\n") << pad;
    text.clear();
    for (const char c : element(i).dump(2)) {
      text += c;
      if (c == '\n') text += pad;  // dump's newlines are its layout: a string's are escaped
    }
    write_filled(text, marked, out);
  }
  out << '\n' << std::string(indent, ' ') << ']';
}

// Writes `doc`, JSON as nlohmann's dump(2) prints it, with each marker replaced by what it stands
// for: a stall list a line a stall, a list of flows or triage rows by write_list.
void write_filled(std::string_view doc, const Marked& marked, std::ostream& out) {
  // dump() writes the marker's \u0001 as the six characters \u0001.
  const std::string_view lead = "\"\\u0001";
  std::size_t at = 0;
  for (std::size_t m = doc.find(lead); m != std::string::npos; m = doc.find(lead, at)) {
    const std::size_t end = doc.find('"', m + lead.size());
    if (end == std::string::npos) break;  // not a string dump() wrote: the rest as it is
    out.write(doc.data() + at, static_cast<std::streamsize>(m - at));
    const std::string key = "\u0001" + std::string(doc.substr(m + lead.size(), end - m - lead.size()));
    // A list's indentation is its key's: the spaces that open the marker's line.
    const std::size_t line = doc.rfind('\n', m) + 1;  // npos + 1 = 0: the first line
    const std::size_t indent = doc.find_first_not_of(' ', line) - line;
    if (const auto st = marked.stalls.find(key); st != marked.stalls.end()) {
      write_stalls(out, *st->second.first, st->second.second);
    } else if (const auto fl = marked.flows.find(key); fl != marked.flows.end()) {
      const auto& flows = fl->second->flows;
      write_list(flows.size(), indent, [&](std::size_t i) { return flow_to_json(flows[i]); }, marked, out);
    } else if (const auto tr = marked.rows.find(key); tr != marked.rows.end()) {
      const auto& rows = tr->second.rows;
      write_list(rows.size(), indent, [&](std::size_t i) { return triage_row_json(rows[i]); }, marked, out);
    } else {
      // No marker: a string of the capture's own that starts with \u0001 (a file's name, say)
      // stays as it is.
      out.write(doc.data() + m, static_cast<std::streamsize>(end + 1 - m));
    }
    at = end + 1;
  }
  out.write(doc.data() + at, static_cast<std::streamsize>(doc.size() - at));
}

}  // namespace

void write_scan_json(const ScanPrint& o, const std::vector<const pcap::FileScan*>& scans, std::ostream& out) {
  // The document with a marker for each list of flows, triage rows and stalls, then those
  // streamed in their place: 100,000 stalls cost a line each, not a DOM node each, and a
  // capture's flows and rows one element's document at a time (docs/BENCHMARKS.md, "scan vs
  // tshark" and "scan: memory with connections that close").
  Marked marked;
  nlohmann::json all = nlohmann::json::array();
  for (const pcap::FileScan* s : scans) all.push_back(scan_to_json(o, *s, marked));
  write_filled((all.size() == 1 ? all[0] : nlohmann::json{{"captures", all}}).dump(2), marked, out);
  out << '\n';
}

void print_scan_text(const ScanPrint& o, const pcap::FileScan& scan, std::ostream& out) {
  std::size_t directions = 0;
  for (const auto& f : scan.flows) directions += f.directions.size();
  // A connection is both directions of a TCP flow; its "flow A -> B" blocks below are the
  // directions that carried data.
  fmt::print(out, "{}: {} records, {} TCP segments{}, {}{}; stall threshold {} ms\n", scan.name, scan.records,
             scan.tcp_packets, o.flow_filtered ? " in matching flows" : "", core::plural(scan.flows.size(), "connection"),
             std::all_of(scan.flows.begin(), scan.flows.end(), [](const auto& f) { return f.directions.size() == 1; })
                 ? ""
                 : fmt::format(" ({} with data)", core::plural(directions, "direction")),
             core::stall_threshold_ms(o.threshold));
  std::uint64_t skipped = 0;
  for (const auto& [reason, n] : scan.skipped) skipped += n;
  if (skipped > 0) fmt::print(out, "skipped {} frames: {}\n", skipped, skipped_summary(scan));
  const auto print_flow = [&](const pcap::FlowReport& f) {
    if (f.directions.empty()) {
      fmt::print(out, "\nflow {} <-> {}: {} packets, no data\n", pcap::format_socket_addr(f.key.a),
                 pcap::format_socket_addr(f.key.b), f.packets);
    }
    for (const pcap::DirectionReport& d : f.directions) print_direction(o, scan, d, out);
  };
  const pcap::Triage t = scan.flows.size() > 1 ? pcap::triage(scan.flows) : pcap::Triage{};
  if (scan.flows.size() <= 1 || t.rows.empty()) {
    // One connection, or none to judge: every flow's report, as it is.
    if (scan.flows.size() > 1) print_triage(t, 0, out);
    for (const pcap::FlowReport& f : scan.flows) print_flow(f);
  } else {
    const std::size_t shown = o.all ? t.rows.size() : std::min(o.top, t.rows.size());
    print_triage(t, shown, out);
    std::size_t reported = 0;
    for (std::size_t i = 0; i < shown; ++i) {
      if (!o.all && !t.rows[i].problem()) continue;
      if (reported++ == 0) {
        fmt::print(out, "\n{}:\n", o.all ? "every connection's report" : "the reports of the connections with a problem "
                                                                         "(--all for every connection)");
      }
      print_flow(*t.rows[i].flow);
    }
    if (reported == 0) fmt::print(out, "\nno connection has a problem (--all for every connection's report)\n");
    if (o.all && t.rows.size() < scan.flows.size()) {
      // --all: the connections too small to judge, or without data, after the judged ones.
      fmt::print(out, "\nthe connections not judged:\n");
      std::unordered_set<const pcap::FlowReport*> judged;
      for (const pcap::TriageRow& r : t.rows) judged.insert(r.flow);
      for (const pcap::FlowReport& f : scan.flows) {
        if (!judged.contains(&f)) print_flow(f);
      }
    }
  }
  if (scan.stats) {
    fmt::print(out, "\ncapture on {}: {} packets passed the filter, {} dropped by libpcap/the kernel, {} by the "
               "interface\n", scan.name, scan.stats->received, scan.stats->dropped, scan.stats->if_dropped);
  }
}

void print_live_stall(const pcap::SocketAddr& sender, const pcap::SocketAddr& receiver, const pcap::Stall& s,
                      std::ostream& out) {
  const std::time_t secs = static_cast<std::time_t>(s.start_ns / 1'000'000'000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  fmt::print(out, "stall {:02}:{:02}:{:02}.{:06} UTC  {} -> {}  {:.1f} ms  {}  frames {} -> {}\n", tm.tm_hour,
             tm.tm_min, tm.tm_sec, (s.start_ns % 1'000'000'000) / 1000, pcap::format_socket_addr(sender),
             pcap::format_socket_addr(receiver), static_cast<double>(s.duration_ns()) / 1e6, pcap::to_string(s.kind),
             s.segment_frame, s.release_frame);
  out.flush();
}

}  // namespace ackstall::report
