#include "ackstall/analysis/capture_scenario.h"

#include "ackstall/core/link_framing.h"

#include <fmt/format.h>

#include "ackstall/scenario/writer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>

#include "ackstall/pcap/diagnosis.h"
#include "ackstall/scenario/profiles.h"
#include "ackstall/scenario/scenario.h"
#include "ackstall/sim/experiment.h"

namespace ackstall::analysis {
namespace {

// The receiver profile whose delayed-ACK timer fits the capture's (src/scenario/profiles.cc;
// docs/STACKS.md §1 Windows, §3 OpenBSD/FreeBSD, §4 Linux). A Linux receiver that waits
// for its timer as a rule is in pingpong mode (linux-pingpong): out of it, the read of a pushed
// segment ACKs at once (tcp_cleanup_rbuf's ICSK_ACK_PUSHED, STACKS §4), so a `linux` receiver
// could not stall every write — measured on the lab corpus (VALIDATION §6): 15928-byte writes
// stalled 198 times in 200 at 0.36 MB/s; the scenario emitted with `linux` predicted 9.1 MB/s.
// A ~200 ms receiver that waited twice per write as a rule has neither the BSD window update on
// read (STACKS §3) nor PSH handling: ns-3's (STACKS §6: two full 200 ms stalls per 8192-byte
// write); emitted as `openbsd-3.9` it came back at twice the capture's goodput (VALIDATION §5).
std::string receiver_profile(const pcap::DirectionReport& d, bool stalls_as_a_rule, double stalls_per_write) {
  if (!d.delayed_ack_timeout_ns) return "openbsd-3.9";
  const double ms = static_cast<double>(*d.delayed_ack_timeout_ns) / 1e6;
  if (ms < 70) return stalls_as_a_rule ? "linux-pingpong" : "linux";
  if (ms < 150) return "freebsd-6";
  return stalls_per_write >= 1.5 ? "ns3" : "openbsd-3.9";
}

// The figures of the busiest direction that both the scenario and its caveats are built from.
struct Figures {
  const pcap::DirectionReport& d;
  pcap::Diagnosis g;
  std::uint64_t write = 1, writes = 1;  // the write size and about how many writes
  std::uint64_t delayed = 0;            // delayed-ACK stalls
  // Did the sender wait on delayed ACKs as a rule (at least every other write)? If it did, its
  // in-flight limit is a per-send quota it waited on (Winsock's, STACKS §1). If it never did,
  // the limit is not one it stalled on: model it as a byte-freed send buffer (BSD, STACKS §3)
  // and a receiver that ACKs a write's last segment at once (ack on PSH) — a stall-free capture
  // says no more than that, and an afd quota or a delaying receiver would invent stalls.
  bool stalls_as_a_rule = false;
};

std::optional<Figures> figures_of(const pcap::FileScan& scan) {
  const pcap::DirectionReport* dp = pcap::busiest_direction(scan);
  if (dp == nullptr) return std::nullopt;
  Figures f{*dp, pcap::diagnose(*dp)};
  f.write = std::max<std::uint64_t>(f.g.write_size.value_or(f.g.in_flight_limit), 1);
  f.writes = std::max<std::uint64_t>(1, (f.d.bytes_sent + f.write - 1) / f.write);
  f.delayed = f.d.stall_counts[static_cast<std::size_t>(pcap::StallKind::delayed_ack)];
  f.stalls_as_a_rule = f.delayed * 2 >= f.writes;
  return f;
}

// The share of the direction's time given to `c` (pcap/diagnosis.h), 0..1.
double share_of(const pcap::Diagnosis& g, core::LimitCause c) {
  for (const auto& a : g.accounts) {
    if (a.cause == c) return a.share;
  }
  return 0;
}

// A cause that sets the pace for this share of the time or more is one the scenario must carry.
constexpr double kPaceShare = 0.15;

// Is the receiver's window one the scenario should carry (its rcvbuf)?
bool window_bound(const Figures& f) {
  return share_of(f.g, core::LimitCause::receiver_window) >= kPaceShare && f.d.max_window_offered > 0 &&
         f.d.zero_window_acks == 0;
}

// What the scenario infers weakly from this capture, each named with the figure it rests on
// (docs/VALIDATION.md §5, §6).
std::vector<std::string> caveats_of(const Figures& f) {
  std::vector<std::string> out;
  const pcap::DirectionReport& d = f.d;
  const pcap::Diagnosis& g = f.g;
  const bool rule = f.stalls_as_a_rule;
  const double span_s = static_cast<double>(d.last_ack_ns - d.first_data_ns) / 1e9;
  if (f.delayed > 0 && !rule) {
    out.push_back(fmt::format("{} delayed-ACK stalls in about {} writes are not a rule: the scenario models "
                              "none of them, so it runs faster than the capture (they cost {:.3f} s of its {:.3f} s)",
                              f.delayed, f.writes, static_cast<double>(d.stalled_ns) / 1e9, span_s));
  }
  if (d.nagle_holds > 0 && f.delayed > 0) {
    out.push_back(fmt::format("Nagle held {} sub-MSS segments until a delayed ACK came (writes in pieces, "
                              "RFC 896): the scenario's sender writes each write whole",
                              d.nagle_holds));
  }
  if (const double app = share_of(g, core::LimitCause::sender_app); app >= kPaceShare) {
    out.push_back(fmt::format("the sending application set the pace for {:.0f} % of the time (it restarted from idle "
                              "{} times): the scenario's ttcp sender writes back to back",
                              100 * app, d.idle_starts));
  }
  if (d.peer_data_bytes > 0 && share_of(g, core::LimitCause::peer_reply) + share_of(g, core::LimitCause::network) >=
                                   kPaceShare) {
    out.push_back(fmt::format("request/response: the peer sent {} bytes of its own between this direction's "
                              "writes; the scenario's ttcp sender streams without waiting for them",
                              d.peer_data_bytes));
  }
  if (const double loss = share_of(g, core::LimitCause::loss); loss >= kPaceShare) {
    out.push_back(fmt::format("losses on the path ({} recoveries, {:.0f} % of the time): the scenario's link "
                              "loses nothing",
                              d.loss_events, 100 * loss));
  }
  if (window_bound(f)) {
    out.push_back(fmt::format("the receiver's window ({} bytes offered) set the pace; the scenario's receiver "
                              "gets it as its rcvbuf, but not how it grew (autotuning)",
                              d.max_window_offered));
  }
  // The link rate: inferred from the spacing of full segments, which is the link only when the
  // transfer ran at it; a window- or buffer-bound sender's spacing is its pacing (Linux paces at
  // 1.2 x cwnd/srtt: net/ipv4/tcp_input.c, tcp_update_pacing_rate).
  if (!rule && d.back_to_back_ns > 0 && d.max_segment > 0 && g.dominant && *g.dominant != core::LimitCause::network &&
      *g.dominant != core::LimitCause::delayed_ack) {
    const double payload_rate = static_cast<double>(d.max_segment) * 1e9 / static_cast<double>(d.back_to_back_ns);
    out.push_back(fmt::format("the link rate comes from the spacing of full segments ({:.2f} MB/s of payload), but "
                              "{} set the pace, not the link: the spacing may be the sender's pacing; set link.rate "
                              "to the path's rate if it is known",
                              payload_rate / 1e6, core::to_string(*g.dominant)));
  } else if (!rule && d.back_to_back_ns > 0 && d.max_segment > 0 && span_s > 0) {
    // One full segment's payload per median spacing: the payload rate the link carried.
    const double payload_rate = static_cast<double>(d.max_segment) * 1e9 / static_cast<double>(d.back_to_back_ns);
    // Over the time not spent in stalls (the rare ones have their own caveat above).
    const double busy_s = span_s - static_cast<double>(d.stalled_ns) / 1e9;
    const double share = busy_s > 0 ? static_cast<double>(d.bytes_acked) / busy_s / payload_rate : 1.0;
    if (share < 0.85) {
      out.push_back(fmt::format("outside its stalls the capture ran at {:.0f} % of its link's payload rate: waits "
                                "below the stall threshold (e.g. an ACK round trip per write, a receiving "
                                "application's reads) set its pace, which the scenario does not model", share * 100));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> scenario_caveats(const pcap::FileScan& scan) {
  const auto f = figures_of(scan);
  return f ? caveats_of(*f) : std::vector<std::string>{};
}

pcap::Result<std::string> scan_scenario_toml(const pcap::FileScan& scan) {
  const auto f = figures_of(scan);
  if (!f) return pcap::make_error(fmt::format("{}: no flow carried data: no scenario to emit", scan.name));
  const pcap::DirectionReport& d = f->d;
  const pcap::Diagnosis& g = f->g;
  const std::uint64_t write = f->write, writes = f->writes;
  const bool stalls_as_a_rule = f->stalls_as_a_rule;
  // The simulator's mss keys are the announced option (it takes the timestamps off itself).
  const std::uint32_t mss = std::max<std::uint32_t>(
      d.mss ? *d.mss : g.mss + static_cast<std::uint32_t>(core::per_segment_option_bytes(d.timestamps)), 88);
  const std::uint64_t quota = std::max<std::uint64_t>(g.in_flight_limit, 1);
  // Link rate from the median spacing of full-size pairs: one Ethernet frame on the wire
  // (core::ethernet_wire_bytes) per spacing, in whole kbit/s; 100 Mbit/s when unseen.
  std::int64_t rate_bps = 100'000'000;
  if (d.back_to_back_ns > 0) {
    const auto frame = static_cast<double>(core::ethernet_wire_bytes(d.max_segment, d.timestamps));
    const double bps = frame * 8 * 1e9 / static_cast<double>(d.back_to_back_ns);
    rate_bps = std::max<std::int64_t>(64, std::llround(bps / 1e3)) * 1000;
  }
  const std::string profile =
      receiver_profile(d, stalls_as_a_rule, static_cast<double>(f->delayed) / static_cast<double>(writes));
  // One-way delay: half the handshake's round trip (SYN to the ACK of the SYN/ACK, which holds
  // both hosts' reaction to a frame, half_flow.cc) less the stack latencies the simulator adds
  // itself at each host (sim::TcpProfile::stack_latency of the two profiles written below), at
  // least the default.
  const auto stack_ns = [](std::string_view name) -> std::int64_t {
    const scenario::NamedProfile* p = scenario::find_profile(name);
    return p != nullptr ? p->make().stack_latency.mean().count() : 0;
  };
  constexpr std::string_view kSender = "winxp";  // the sender the scenario models (AFD, §1)
  const std::int64_t hosts_ns = stack_ns(kSender) + stack_ns(profile);
  const std::int64_t prop_ns =
      d.handshake_rtt_ns ? std::max<std::int64_t>((*d.handshake_rtt_ns - hosts_ns) / 2, 25) : 25;
  // A typed configuration over the two profiles, written through the key table (scenario/writer.h):
  // each figure the capture gave is carried, so the file shows it even where the profile agrees.
  auto made = scenario::ScenarioWriter::over({.sender = std::string(kSender), .receiver = profile, .link = {}});
  if (!made) return pcap::make_error(fmt::format("the emitted scenario: {}", made.error().message()));
  scenario::ScenarioWriter& w = *made;
  w.comment("Emitted by `ackstall scan --emit-scenario` from the capture's own figures:");
  w.comment(fmt::format("  {} flow {} -> {}", scan.name, pcap::format_socket_addr(d.sender),
                        pcap::format_socket_addr(d.receiver)));
  w.comment(fmt::format("  capture goodput {:.0f} bytes/s; in-flight limit {} bytes; write {} bytes x {}",
                        d.goodput_bytes_per_s, g.in_flight_limit, write, writes));
  for (const std::string& c : caveats_of(*f)) w.comment("caveat: " + c);
  w.comment("Predict the fix: ackstall sim FILE --set app.transmitter.chunking=seed");
  w.metadata().name = fmt::format("from capture {}", pcap::format_socket_addr(d.sender));
  w.metadata().calibration = "prediction";
  const auto i64 = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
  sim::ExperimentConfig& c = w.config();
  c.link.rate_bps = rate_bps;
  c.link.prop_delay = sim::Nanos(prop_ns);
  for (sim::TcpProfile* side : {&c.sender, &c.receiver}) {
    side->mss = static_cast<std::int32_t>(mss);
    side->ask_timestamps = d.timestamps;
  }
  // A byte-freed buffer holds what is in flight and the next write waiting behind it.
  c.sender.send_buffer.kind = stalls_as_a_rule ? sim::SendBufferKind::afd : sim::SendBufferKind::bsd;
  c.sender.send_buffer.size = i64(stalls_as_a_rule ? quota : std::max<std::uint64_t>(quota, d.max_in_flight) + write);
  c.app.transmitter.chunking = core::PolicyKind::none;
  c.app.transmitter.write_len = i64(write);
  c.app.transmitter.writes = i64(writes);
  for (const auto* side : {&c.sender, &c.receiver}) {
    w.carry(side->mss);
    w.carry(side->ask_timestamps);
  }
  w.carry(c.link.rate_bps);
  w.carry(c.link.prop_delay);
  w.carry(c.sender.send_buffer.kind);
  w.carry(c.sender.send_buffer.size);
  w.carry(c.app.transmitter.chunking);
  w.carry(c.app.transmitter.write_len);
  w.carry(c.app.transmitter.writes);
  if (window_bound(*f)) {
    c.receiver.rcvbuf = i64(d.max_window_offered);
    w.carry(c.receiver.rcvbuf);
  }
  if (d.delayed_ack_timeout_ns && profile != "linux") {
    c.receiver.ack.delack_timeout = sim::Nanos::us(std::max<std::int64_t>(1, *d.delayed_ack_timeout_ns / 1000));
    w.carry(c.receiver.ack.delack_timeout);
  }
  // Not stalled as a rule: a receiver that ACKs a write's last segment at once (Figures); a
  // `linux` receiver keeps its own rule.
  if (!stalls_as_a_rule && profile != "linux") {
    c.receiver.ack.ack_on_push = true;
    w.carry(c.receiver.ack.ack_on_push);
  }
  auto text = w.toml();
  if (!text) return pcap::make_error(fmt::format("the emitted scenario: {}", text.error().message()));
  return *text;
}

pcap::Result<ScenarioReplay> replay_scan_scenario(const pcap::FileScan& scan) {
  auto text = scan_scenario_toml(scan);
  if (!text) return tl::unexpected(text.error());
  const auto f = figures_of(scan);
  ScenarioReplay r;
  r.capture_mib_s = f->d.goodput_bytes_per_s / (1 << 20);
  const std::string robust[] = {"app.transmitter.chunking=robust"};
  for (const bool fixed : {false, true}) {
    auto sc = scenario::parse_scenario(*text, "the emitted scenario",
                                       fixed ? std::span<const std::string>(robust) : std::span<const std::string>());
    if (!sc) return tl::unexpected(sc.error());
    auto run = sim::run_experiment(sc->config);
    if (!run) return tl::unexpected(run.error());
    (fixed ? r.robust_mib_s : r.replay_mib_s) = run->goodput_mib_s;
  }
  r.deviation = r.capture_mib_s > 0 ? r.replay_mib_s / r.capture_mib_s - 1 : 0;
  return r;
}

pcap::Result<std::string> write_scan_scenario(const pcap::FileScan& scan, const std::filesystem::path& path) {
  auto text = scan_scenario_toml(scan);
  if (!text) return tl::unexpected(text.error());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return core::os_failure("", errno, fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  out << *text;
  out.close();
  if (!out) return core::os_failure("", errno, fmt::format("{}: write failed", path.string()));
  return fmt::format("{} bytes", text->size());
}

}  // namespace ackstall::analysis
