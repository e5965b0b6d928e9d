// config.h: profiles, validation and names (and trace.h's stall names). No simulation here.
#include "ackstall/sim/config.h"

#include "ackstall/core/units.h"

#include "ackstall/sim/trace.h"

#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace ackstall::sim {

TcpProfile TcpProfile::winxp() {
  TcpProfile p;
  p.mss = 0;                                  // MTU - 40 = 1460
  p.ask_timestamps = false;                   // §1: XP does not ask when it opens [I, seed]
  p.accept_timestamps = true;                 // §1: XP honours a peer's request [I, seed]
  p.ask_window_scale = false;                 // XP: Tcp1323Opts default off
  p.nagle = NagleKind::classic;               // §1 KB214397: Nagle on by default
  p.send_buffer = {SendBufferKind::afd, 8192, false};  // §1 KB214397: SO_SNDBUF 8192
  p.ack.kind = AckPolicyKind::windows;        // §1: 200 ms, TcpAckFrequency 2
  p.ack.delack_timeout = Nanos::ms(200);
  p.ack.ack_frequency = 2;
  p.receive_window = ReceiveWindowKind::bsd;  // [I]
  p.window_update_on_read = true;             // [I]
  p.rcvbuf = 17520;                           // XP TcpWindowSize on Ethernet [I]
  p.round_rcvbuf_to_mss = true;
  p.cwnd = {2, 2};                            // §1: initial cwnd 2, restart after ~RTO idle [I]
  p.rto_initial = Nanos::s(3);                // RFC 2988 / TcpInitialRtt 3 s [I]
  p.rto_min = Nanos::ms(300);                 // MinRto 300 ms [I]
  // §1 per-frame host cost (NdisMSendComplete per packet) [calibrated on the seed's "best raw
  // winsock" row only: 11.1 MiB/s (§6); VALIDATION.md §1]
  p.per_segment_cost = Delay(Nanos::ns(2400));
  return p;
}

TcpProfile TcpProfile::openbsd39() {
  TcpProfile p;
  p.mss = 0;
  p.ask_timestamps = true;                    // §3: OpenBSD SYN carries timestamps
  p.accept_timestamps = true;
  p.ask_window_scale = true;                  // §3: and window scale
  p.nagle = NagleKind::classic;               // §3: tcp_output
  p.send_buffer = {SendBufferKind::bsd, 16384, false};  // §3: TCP_SENDSPACE
  p.ack.kind = AckPolicyKind::openbsd;        // §3
  p.ack.delack_timeout = Nanos::ms(200);      // §3: tcp_delack_ticks = hz/PR_FASTHZ
  p.ack.ack_on_push = false;                  // §3: net.inet.tcp.ackonpush default 0
  p.receive_window = ReceiveWindowKind::bsd;  // §3
  p.window_update_on_read = true;             // §3: tcp_output via PRU_RCVD
  p.rcvbuf = 16384;                           // §3: TCP_RECVSPACE, rounded up to MSS
  p.round_rcvbuf_to_mss = true;
  p.cwnd = {0, 2};                            // §3: RFC 3390; 2*maxseg after idle >= RTO
  p.rto_initial = Nanos::s(3);                // TCPTV_RTOBASE... initial 3 s [I]
  p.rto_min = Nanos::s(1);                    // TCPTV_MIN = 2 slow ticks = 1 s
  return p;
}

namespace {

// One table of names per enum, indexed by the enum's value (enums only ever append values).
template <class E, std::size_t N>
std::optional<E> parse_in(const std::array<std::string_view, N>& names, std::string_view s) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}
template <class E, std::size_t N>
std::string_view name_in(const std::array<std::string_view, N>& names, E v) noexcept {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? names[i] : std::string_view("?");
}

constexpr std::array<std::string_view, 3> kNagle{"off", "classic", "minshall"};
constexpr std::array<std::string_view, 3> kSndbuf{"afd", "bsd", "ns3"};
constexpr std::array<std::string_view, 8> kAck{"openbsd", "bsd-tick", "freebsd",        "linux-2.6",
                                               "linux",   "linux-pingpong", "windows", "ns3"};
static_assert(static_cast<std::size_t>(AckPolicyKind::ns3) + 1 == kAck.size());
constexpr std::array<std::string_view, 3> kRwin{"bsd", "linux", "ns3"};
constexpr std::array<std::string_view, 2> kTeardown{"sleep-loop", "event"};
constexpr std::array<std::string_view, 2> kInit{"sender", "receiver"};
static_assert(static_cast<std::size_t>(NagleKind::minshall) + 1 == kNagle.size());
static_assert(static_cast<std::size_t>(SendBufferKind::ns3) + 1 == kSndbuf.size());
static_assert(static_cast<std::size_t>(ReceiveWindowKind::ns3) + 1 == kRwin.size());
static_assert(static_cast<std::size_t>(SelectTeardown::event) + 1 == kTeardown.size());
static_assert(static_cast<std::size_t>(Initiator::receiver) + 1 == kInit.size());

// A Delay key (delay.h): its terms' rule, values in [0, max].
core::Result<void> check_delay(std::string_view key, const Delay& d, Nanos max) {
  if (auto e = d.check(max); !e.empty()) return core::fail(std::string(key) + ": " + e);
  return {};
}

// The application's and the hosts' delays: at most 1000 s a term (a draw stays far inside int64 ns).
constexpr Nanos kMaxAppDelay = Nanos::s(1000);

core::Result<void> validate_profile(const TcpProfile& p, std::string_view side,
                                            const LinkConfig& link) {
  const std::string pre = std::string(side) + ".";
  constexpr std::int64_t kMaxMss = core::mss_for_mtu(65535);  // 65495: the largest IPv4 MTU's
  if (p.mss < 0 || p.mss > kMaxMss) return core::fail(pre + "mss: must be in [0, " + std::to_string(kMaxMss) + "]");
  if (p.mss != 0 && p.mss < 64) return core::fail(pre + "mss: must be 0 (from MTU) or >= 64");
  if (p.mss == 0 && core::mss_for_mtu(link.mtu) < 64) return core::fail(pre + "mss: link.mtu - 40 is below 64");
  if (p.send_buffer.size <= 0 || p.send_buffer.size > (std::int64_t{1} << 30))
    return core::fail(pre + "send_buffer.size: must be in [1, 2^30]");
  if (p.send_buffer.unset && p.send_buffer.kind != SendBufferKind::afd)
    return core::fail(pre + "send_buffer.size: \"unset\" (dynamic send buffering) needs send_buffer.kind = afd");
  if (p.send_buffer.isb_initial <= 0 || p.send_buffer.isb_initial > (std::int64_t{1} << 30))
    return core::fail(pre + "send_buffer.isb_initial: must be in [1, 2^30]");
  if (p.rcvbuf <= 0 || p.rcvbuf > (std::int64_t{1} << 30)) return core::fail(pre + "rcvbuf: must be in [1, 2^30]");
  if (p.ack.delack_timeout <= Nanos::zero()) return core::fail(pre + "ack.delack_timeout: must be > 0");
  if (p.ack.tick <= Nanos::zero()) return core::fail(pre + "ack.tick: must be > 0");
  if (p.ack.ack_frequency < 1 || p.ack.ack_frequency > 255)
    return core::fail(pre + "ack.ack_frequency: must be in [1, 255]");
  if (p.ack.ato_min <= Nanos::zero() || p.ack.ato_max < p.ack.ato_min)
    return core::fail(pre + "ack.ato_min/ato_max: need 0 < ato_min <= ato_max");
  // ack_at_read is a rule of the Linux window check (tcp_endpoint.cc accept_in_order).
  if (p.ack.ack_at_read && p.receive_window != ReceiveWindowKind::linux)
    return core::fail(pre + "ack.ack_at_read: needs receive_window = linux");
  if (p.ack.jiffy < Nanos::zero() || p.ack.jiffy > Nanos::s(1))
    return core::fail(pre + "ack.jiffy: must be in [0, 1s] (0 = exact timers)");
  if (p.ack.max_quickacks < 0) return core::fail(pre + "ack.max_quickacks: must be >= 0");
  if (p.cwnd.initial_segments < 0 || p.cwnd.initial_segments > 1000)
    return core::fail(pre + "cwnd.initial_segments: must be in [0, 1000]");
  if (p.cwnd.after_idle_segments < 0 || p.cwnd.after_idle_segments > 1000)
    return core::fail(pre + "cwnd.after_idle_segments: must be in [0, 1000]");
  if (p.rto_min <= Nanos::zero()) return core::fail(pre + "rto_min: must be > 0");
  if (p.rto_initial < p.rto_min) return core::fail(pre + "rto_initial: must be >= rto_min");
  if (auto ok = check_delay(pre + "stack_latency", p.stack_latency, kMaxAppDelay); !ok) return ok;
  if (auto ok = check_delay(pre + "per_segment_cost", p.per_segment_cost, kMaxAppDelay); !ok) return ok;
  return {};
}

}  // namespace

core::Result<void> validate(const ExperimentConfig& c) {
  // A scenario is TOML, whose integers are signed 64-bit (TOML 1.0 "Integer"): a seed a scenario
  // cannot hold is refused here, so that a written scenario always loads.
  if (c.seed > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return core::fail("seed: must be in [0, 2^63 - 1] (a TOML integer)");
  const auto& l = c.link;
  if (l.rate_bps <= 0 || l.rate_bps > 1'000'000'000'000) return core::fail("link.rate_bps: must be in [1, 1e12]");
  if (l.prop_delay < Nanos::zero()) return core::fail("link.prop_delay: must be >= 0");
  if (l.mtu < 104 || l.mtu > 65535) return core::fail("link.mtu: must be in [104, 65535]");
  if (l.framing_overhead < 0 || l.framing_overhead > 1000) return core::fail("link.framing_overhead: must be in [0, 1000]");
  if (l.frame_gap < 0 || l.frame_gap > l.framing_overhead)
    return core::fail("link.frame_gap: must be in [0, framing_overhead]");
  if (l.min_frame < 0 || l.min_frame > 10000) return core::fail("link.min_frame: must be in [0, 10000]");
  if (l.queue_limit_packets < 1) return core::fail("link.queue_limit_packets: must be >= 1");
  if (l.burst < 0 || l.burst > (std::int64_t{1} << 30))
    return core::fail("link.burst: must be in [0, 1G] bytes (0 = a wire)");
  // The shaper's lateness: at most 1 s a term (sch_tbf's watchdog, docs/STACKS.md §7).
  if (auto ok = check_delay("link.shaper_lateness", l.shaper_lateness, Nanos::s(1)); !ok) return ok;
  if (!l.shaper_lateness.none() && l.burst == 0)
    return core::fail("link.shaper_lateness: needs a token bucket (link.burst > 0)");
  if (auto ok = check_delay("link.data_lateness", l.data_lateness, Nanos::s(1)); !ok) return ok;
  if (!l.data_lateness.none() && l.burst == 0)
    return core::fail("link.data_lateness: needs a token bucket (link.burst > 0)");
  if (auto e = validate_profile(c.sender, "sender", l); !e) return e;
  if (auto e = validate_profile(c.receiver, "receiver", l); !e) return e;
  const auto& t = c.app.transmitter;
  if (t.writes < 0) return core::fail("app.transmitter.writes: must be >= 0");
  if (t.duration < Nanos::zero() || t.duration > Nanos::s(1'000'000))
    return core::fail("app.transmitter.duration: must be in [0, 1000000s] (0 = all writes)");
  if (t.write_len <= 0 || t.write_len > (std::int64_t{1} << 30))
    return core::fail("app.transmitter.write_len: must be in [1, 2^30]");
  if (t.writes > 0 && t.write_len > (std::int64_t{1} << 62) / t.writes)
    return core::fail("app.transmitter.writes: writes * write_len overflows");
  if (t.chunk_mss_guess < 0) return core::fail("app.transmitter.chunk_mss_guess: must be >= 0");
  if (auto ok = check_delay("app.transmitter.wakeup", t.wakeup, kMaxAppDelay); !ok) return ok;
  if (auto ok = check_delay("app.transmitter.send_cost", t.send_cost, kMaxAppDelay); !ok) return ok;
  const auto& r = c.app.receiver;
  if (r.read_len <= 0) return core::fail("app.receiver.read_len: must be > 0");
  if (auto ok = check_delay("app.receiver.read_wakeup", r.read_wakeup, kMaxAppDelay); !ok) return ok;
  if (auto ok = check_delay("app.receiver.read_cost", r.read_cost, kMaxAppDelay); !ok) return ok;
  const auto& s = c.app.scp;
  if (auto ok = check_delay("app.scp.sleep_quantum", s.sleep_quantum, kMaxAppDelay); !ok) return ok;
  if (s.sleep_quantum.fixed() ? *s.sleep_quantum.fixed() <= Nanos::zero()
                              : s.sleep_quantum.least() < kMinRandomSleepQuantum)
    return core::fail("app.scp.sleep_quantum: must be > 0; a random one's least draw >= " +
                      core::format_duration_ns(kMinRandomSleepQuantum.count()) +
                      " (its constant terms, quantiles' p0, a trace's least value)");
  if (auto ok = check_delay("app.scp.event_wakeup", s.event_wakeup, kMaxAppDelay); !ok) return ok;
  // At most 1 ms per byte (ssh on 2006 hardware: 140 ns): the cost of a whole write or read
  // (<= 2^30 bytes) then stays far inside int64 picoseconds (found by fuzz_simulation).
  constexpr std::int64_t kMaxCpuPsPerByte = 1'000'000'000;
  if (s.sender_cpu_ps_per_byte < 0 || s.sender_cpu_ps_per_byte > kMaxCpuPsPerByte)
    return core::fail("app.scp.sender_cpu_ps_per_byte: must be in [0, 1000000000] (1 ms per byte)");
  if (s.receiver_cpu_ps_per_byte < 0 || s.receiver_cpu_ps_per_byte > kMaxCpuPsPerByte)
    return core::fail("app.scp.receiver_cpu_ps_per_byte: must be in [0, 1000000000] (1 ms per byte)");
  if (s.sender_output_buffer < 0 || s.sender_output_buffer > (std::int64_t{1} << 30))
    return core::fail("app.scp.sender_output_buffer: must be in [0, 1073741824] bytes");
  if (c.time_limit <= Nanos::zero()) return core::fail("time_limit: must be > 0");
  if (c.stall_threshold < core::StallThreshold::zero()) return core::fail("stall_threshold: must be >= 0");
  return {};
}

std::string_view to_string(NagleKind v) noexcept { return name_in(kNagle, v); }
std::string_view to_string(SendBufferKind v) noexcept { return name_in(kSndbuf, v); }
std::string_view to_string(AckPolicyKind v) noexcept { return name_in(kAck, v); }
std::string_view to_string(ReceiveWindowKind v) noexcept { return name_in(kRwin, v); }
std::string_view to_string(SelectTeardown v) noexcept { return name_in(kTeardown, v); }
std::string_view to_string(Initiator v) noexcept { return name_in(kInit, v); }
std::optional<NagleKind> parse_nagle_kind(std::string_view s) noexcept { return parse_in<NagleKind>(kNagle, s); }
std::optional<SendBufferKind> parse_send_buffer_kind(std::string_view s) noexcept {
  return parse_in<SendBufferKind>(kSndbuf, s);
}
std::optional<AckPolicyKind> parse_ack_policy_kind(std::string_view s) noexcept {
  return parse_in<AckPolicyKind>(kAck, s);
}
std::optional<ReceiveWindowKind> parse_receive_window_kind(std::string_view s) noexcept {
  return parse_in<ReceiveWindowKind>(kRwin, s);
}
std::optional<SelectTeardown> parse_select_teardown(std::string_view s) noexcept {
  return parse_in<SelectTeardown>(kTeardown, s);
}
std::optional<Initiator> parse_initiator(std::string_view s) noexcept { return parse_in<Initiator>(kInit, s); }
std::span<const std::string_view> nagle_kind_names() noexcept { return kNagle; }
std::span<const std::string_view> send_buffer_kind_names() noexcept { return kSndbuf; }
std::span<const std::string_view> ack_policy_kind_names() noexcept { return kAck; }
std::span<const std::string_view> receive_window_kind_names() noexcept { return kRwin; }
std::span<const std::string_view> select_teardown_names() noexcept { return kTeardown; }
std::span<const std::string_view> initiator_names() noexcept { return kInit; }

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (const std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace ackstall::sim
