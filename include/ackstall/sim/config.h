// ackstall/sim/config.h — the simulator's configuration vocabulary: what an experiment is made
// of (link, per-side TCP profile, applications), its validation and the names scenarios and the
// CLI use for its enums. The model headers (ack_*.h, nagle.h, link.h, tcp_endpoint.h ...) need
// only this; the run API (run_experiment, Summary) is experiment.h, the trace types trace.h.
//
// Defaults (a value-initialised ExperimentConfig) reproduce the seed (docs/STACKS.md §0, 2006):
// Windows XP SP2 + Cygwin ttcp transmitter (`ttcp -tsn 30000`, 30000 writes of 8192 bytes,
// nonblocking sends, SO_SNDBUF 8192 charged per whole send by AFD, no chunking) connecting to an
// OpenBSD `ttcp -r` receiver (3.9 inferred: the seed names no release, §3; 200 ms
// per-connection delayed ACK, ackonpush=0) over a
// full-duplex 100BASE-T crossover cable. Every default cites its source in
// docs/STACKS.md (§N) or is marked [calibrated] / [I] (inferred).
//
// Compatibility: a field is added with a default that keeps old results, and enum values are
// only appended. A field may be replaced (the eleven delay fields became four Delay values,
// delay.h; the host costs — stack_latency, per_segment_cost, send_cost, read_cost, the scp
// teardown's sleep_quantum and event_wakeup — became Delays under their own names, a plain
// duration being a constant Delay with the same runs); the scenario keys keep the old names for one release as aliases that warn
// (scenario/fields.h), so files keep loading and give the same runs.
#pragma once

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/error.h"
#include "ackstall/core/link_framing.h"
#include "ackstall/core/units.h"
#include "ackstall/sim/delay.h"
#include "ackstall/sim/time.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ackstall::sim {

// ---------------------------------------------------------------------------------------------
// Link
// ---------------------------------------------------------------------------------------------

// A full-duplex point-to-point link: each direction has its own transmitter and drop-tail queue,
// so ACKs never share the data direction's capacity (§5). Bytes on the wire per frame:
//     wire = max(ip_len + framing_overhead - frame_gap, min_frame) + frame_gap
// Ethernet (§5): framing 38 = 8 preamble/SFD + 14 header + 4 FCS + 12 inter-frame gap, of which
// frame_gap = 20 lies outside the 64-byte minimum frame. PPP as ns-3 models it: 2, 0, 0.
struct LinkConfig {
  std::int64_t rate_bps = 100'000'000;     // 100BASE-T
  Nanos prop_delay = Nanos::ns(25);        // ~5 m crossover cable at 2e8 m/s
  std::int32_t mtu = 1500;                 // IP MTU, bytes
  std::int32_t framing_overhead = 38;      // bytes per frame beyond the IP packet (§5)
  std::int32_t min_frame = 64;             // minimum frame (header+payload+FCS), padded (§5)
  std::int32_t frame_gap = 20;             // part of framing_overhead outside min_frame (§5)
  std::int32_t queue_limit_packets = 100;  // drop-tail, per direction, including the frame on air
  // 0: a wire (each frame takes its serialisation time). > 0: a token-bucket shaper in front of a
  // fast link, as the lab's `tbf rate R burst B` (docs/STACKS.md §7): idle time banks up to
  // `burst` bytes of credit at `rate`, and a frame that finds enough credit leaves at once.
  std::int64_t burst = 0;
  // With burst > 0: a frame that must wait for credit leaves this much later (a Delay, delay.h;
  // none: exactly when the credit suffices). sch_tbf does not poll: tbf_dequeue
  // (net/sched/sch_tbf.c) arms the qdisc watchdog (sch_api.c, an hrtimer) for the moment the
  // tokens will suffice, and the frame leaves when the timer's NET_TX softirq runs, late by the
  // host's timer and softirq latency; tokens keep accruing meanwhile, so the lateness does not add
  // up (docs/STACKS.md §7). Drawn from the link's own random stream. A capture's distribution:
  // bench/lab_link_jitter.py (as quantiles(...)).
  Delay shaper_lateness{};
  // With burst > 0: each data frame from sender to receiver reaches the receiver this much later
  // than the bucket lets it go, never before the frame ahead of it. The lab's lateness as the
  // sequence it came in, trace(...): it comes in runs (one host pause holds back several frames
  // alike), which independent draws do not keep (bench/lab_spacing_check.sh, docs/VALIDATION.md
  // §4). bench/lab_link_jitter.py --trace prints a capture's sequence, write by write (0 for a
  // write's first two segments, which leave on banked credit).
  Delay data_lateness{};

  // The framing as core's link vocabulary (core/link_framing.h: wire bytes, goodput ceiling).
  constexpr core::LinkFraming framing() const noexcept {
    return {framing_overhead, min_frame, frame_gap};
  }
  static LinkConfig ethernet_100baset() { return {}; }
  // ns-3 PointToPoint with PPP framing (peers/ns3 README).
  static LinkConfig ppp(std::int64_t rate_bps, Nanos prop_delay) {
    LinkConfig l;
    l.rate_bps = rate_bps;
    l.prop_delay = prop_delay;
    const core::LinkFraming f = core::LinkFraming::ppp();
    l.framing_overhead = f.overhead;
    l.min_frame = f.min_frame;
    l.frame_gap = f.gap;
    return l;
  }
};
static_assert(LinkConfig{}.framing() == core::LinkFraming::ethernet());

// ---------------------------------------------------------------------------------------------
// TCP profile (one per side)
// ---------------------------------------------------------------------------------------------

// Nagle variant (§3, §4): off = TCP_NODELAY; classic = BSD tcp_output (hold a short segment
// unless the connection is idle); minshall = Linux tcp_nagle_check (hold a short segment only
// while a previous short segment is un-ACKed).
enum class NagleKind : std::uint8_t { off, classic, minshall };

// Send-buffer accounting seen by the application (§1, peers/ns3 README):
//   afd — Winsock: quota SO_SNDBUF charged per whole send, released when the whole send is ACKed;
//         KB214397's three completion rules; nonblocking: WSAEWOULDBLOCK while buffered >= quota,
//         FD_WRITE when a buffered send completes.
//   bsd — byte-granular socket buffer, partial accept (sosend).
//   ns3 — byte-granular, a write is accepted only if it fits whole (TcpSocketBase::Send).
enum class SendBufferKind : std::uint8_t { afd, bsd, ns3 };

struct SendBufferConfig {
  SendBufferKind kind = SendBufferKind::afd;
  std::int64_t size = 8192;  // SO_SNDBUF bytes (XP default, §1)
  // afd only: apply KB214397 rule 2 ("over quota with one buffered send: accept") to
  // nonblocking sends too, as the KB literally reads. The seed observed that XP does NOT do this
  // (its pseudo-code returns EAGAIN whenever buffered >= quota), so the default is false.
  bool kb214397_literal = false;
  // afd only: the application leaves SO_SNDBUF unset (scenario: size = "unset"). Windows 7 and
  // later then size the send buffer themselves (dynamic send buffering, on unless the application
  // sets SO_SNDBUF: Microsoft Learn, "SIO_IDEAL_SEND_BACKLOG_QUERY"; docs/STACKS.md §1): the quota
  // follows the ideal send backlog (sim/ideal_send_backlog.h), and `size` is only what the
  // application's own send path believes it has (the simulated sender is a Cygwin program:
  // wmem (), kCygwinUnsetWmem, which its chunk policy cuts by; docs/STACKS.md §2).
  // A setsockopt(SO_SNDBUF) during the run (app.transmitter.allow_raise_sndbuf) ends it.
  bool unset = false;
  // With `unset`: the quota before the first ideal-send-backlog estimate, and its floor [I]
  // (Windows 10's default SO_SNDBUF, §1; sim/ideal_send_backlog.h).
  std::int64_t isb_initial = 65536;
};

// Cygwin's wmem () while the application leaves SO_SNDBUF unset: 212992 (winsup/cygwin/fhandler/
// socket_inet.cc, fhandler_socket_inet; docs/STACKS.md §2). `size = "unset"` sets it as `size`.
inline constexpr std::int64_t kCygwinUnsetWmem = 212992;

// Receiver ACK policy (§3, §4, peers/ns3 README).
enum class AckPolicyKind : std::uint8_t {
  openbsd,         // every 2nd in-order segment; one-shot per-connection timer; ackonpush option
  bsd_tick,        // pre-2001 BSD: pending delayed ACKs flushed by a global periodic tick
  freebsd,         // FreeBSD 6: as openbsd with a 100 ms timer, no ackonpush
  linux_2_6,       // quickack / pingpong / adaptive ATO / ACK when a read drains a short segment
  linux,           // current Linux: as linux_2_6 plus ICSK_ACK_PUSHED2
  linux_pingpong,  // current Linux with TCP_QUICKACK=0 re-set after every read (§7)
  windows,         // TcpAckFrequency segments or a 200 ms timer
  ns3,             // DelAckCount / DelAckTimeout; no PSH handling
};

struct AckPolicyConfig {
  AckPolicyKind kind = AckPolicyKind::openbsd;
  Nanos delack_timeout = Nanos::ms(200);  // openbsd/windows/ns3 timer; freebsd uses 100 ms (§3)
  bool ack_on_push = false;               // net.inet.tcp.ackonpush (OpenBSD), default 0 (§3)
  std::int32_t ack_frequency = 2;         // windows TcpAckFrequency; ns3 DelAckCount
  Nanos tick = Nanos::ms(200);            // bsd_tick: period of the global fast-timeout tick
  Nanos ato_min = Nanos::ms(40);          // linux: TCP_ATO_MIN (§4)
  Nanos ato_max = Nanos::ms(200);         // linux: TCP_DELACK_MAX (§4)
  std::int32_t max_quickacks = 16;        // linux: TCP_MAX_QUICKACKS (§4)
  // linux: the kernel's timer granularity (1/HZ): sk_reset_timer takes jiffies, so a delayed
  // ACK due at now + ato fires at the next jiffy boundary (jiffies counted from time 0 here).
  // 0 = exact. 4 ms = HZ 250 (Debian's CONFIG_HZ; the lab's delayed ACKs: 40.3-43.4 ms, §7).
  Nanos jiffy = Nanos::zero();
  // linux: __tcp_ack_snd_check's window term (the window it would offer not below the one
  // offered) fails whenever a received byte is unread, so "more than one rcv_mss un-ACKed" never
  // sends the ACK at a segment's arrival: the read sends it (tcp_cleanup_rbuf) and covers what
  // arrived by then. Measured, not derived: the lab's autotuned classic receiver (rcvbuf
  // 1,746,953, rcv_ssthresh 1,104,364, window 1,104,896 = 1079 x 1024) ACKs a pair 10-15 us
  // (p10-p90) after its second segment, where an ACK sent at arrival leaves after 1-5 us; with a
  // 131,072-byte buffer (window 81,920 = ALIGN(rcv_ssthresh)) after 1.4-4.3 us. The source
  // leaves it to where rcv_ssthresh sits against the free space less one queued skb's truesize,
  // rounded to the window-scale unit (docs/STACKS.md §4). The simulator counts unread bytes in
  // whole segments, which puts rcv_ssthresh at exactly that free space, so without this key a
  // segment read before the next arrives is ACKed at that arrival.
  bool ack_at_read = false;
};

// How the advertised window is computed and whether a read triggers a window-update ACK.
//   bsd   — tcp_output: win = sbspace, 0 below min(rcvbuf/4, maxseg) (receiver SWS), never
//           shrinks; update on read when adv >= 2*maxseg or 2*adv >= rcvbuf (§3).
//   linux — win rounded down to whole rcv_mss; update on read per tcp_cleanup_rbuf (§4).
//   ns3   — win = free buffer space; no update on read (peers/ns3 README).
enum class ReceiveWindowKind : std::uint8_t { bsd, linux, ns3 };

struct CwndConfig {
  std::int32_t initial_segments = 2;     // 0 = RFC 3390 min(4*mss, max(2*mss, 4380)) (§3)
  std::int32_t after_idle_segments = 2;  // cwnd after idle >= RTO; 0 = never restart (§1, §3)
};

struct TcpProfile {
  std::int32_t mss = 0;            // MSS option announced; 0 = link MTU - 40
  bool ask_timestamps = false;     // put RFC 1323 timestamps in our SYN (initiator)
  bool accept_timestamps = true;   // answer a SYN that had them (§1: XP accepts, does not ask)
  bool ask_window_scale = false;   // put a window-scale option (shift 0) in our SYN
  NagleKind nagle = NagleKind::classic;
  // A queued FIN forces the last (short) segment out past Nagle: BSD tcp_output ("if (flags &
  // TH_FIN ...) goto send"), Linux tcp_nagle_test. ns-3 (SendPendingData) keeps Nagle: false.
  bool fin_overrides_nagle = true;
  SendBufferConfig send_buffer{};
  AckPolicyConfig ack{};
  ReceiveWindowKind receive_window = ReceiveWindowKind::bsd;
  bool window_update_on_read = true;    // ns-3 has none (§3)
  std::int64_t rcvbuf = 17520;          // SO_RCVBUF bytes (XP TcpWindowSize on Ethernet [I])
  bool round_rcvbuf_to_mss = true;      // BSD rounds the buffers up to whole MSS (§3)
  // Linux's initial receive window (tcp_select_initial_window; rcv_ssthresh starts there):
  // 0 = ten segments (TCP_DEFAULT_INIT_RCVWND, Linux 3.0-5.3); > 0 = min(rcvbuf, this) rounded
  // down to whole MSS (Linux 5.4 on: "SYN rwin to around 64KB", U16_MAX; §4).
  std::int64_t linux_initial_rwnd = 0;
  CwndConfig cwnd{};
  Nanos rto_initial = Nanos::s(3);      // RFC 1122/2988 initial RTO
  Nanos rto_min = Nanos::ms(300);       // Windows MinRto [I]; OpenBSD TCPTV_MIN = 1 s
  // Time from a frame's last bit arriving to the stack's reaction (NIC interrupt moderation +
  // tcp_input + tcp_output): a Delay (delay.h), drawn per frame this host receives from the
  // hosts' own random stream (a constant draws nothing). It sets the RTT on a crossover cable.
  // Frames are handled in the order they arrived, whatever the draws: a frame is handled no
  // earlier than the one ahead of it, max(previous handling, arrival + draw). A stack takes a
  // NIC's frames in ring order (Linux: the NAPI poll walks the RX ring in order, net/core/dev.c
  // napi_poll -> the driver's poll; BSD/NDIS: the receive interrupt's handler walks the ring
  // likewise), so a late draw holds back the frames behind it rather than reordering them.
  // [calibrated, with the transmitter's wakeup, on the seed's "patched, ttcp defaults" row
  // (§6: 9.3 MiB/s)]
  Delay stack_latency{Nanos::us(60)};
  // Host time per frame sent, serial with the NIC: the driver posts the next frame only after the
  // previous one's send completion has been handled (NDIS NdisMSendComplete / the miniport's
  // transmit-complete DPC, one per packet without interrupt moderation; docs/STACKS.md §1). Each
  // frame from this host occupies the link for this long before its serialisation (frames stay
  // in order: one draw per frame, each after the previous frame has left). A Delay (delay.h),
  // drawn from the hosts' own random stream; none = no cost.
  // [winxp: calibrated on the seed's "best raw winsock" row (§6: 11.1 MiB/s) only]
  Delay per_segment_cost{};

  // Windows XP SP2 as in the seed (§1): no timestamps asked, accepted; classic Nagle; AFD 8192;
  // initial cwnd 2; restart after idle; 200 ms delayed ACK with TcpAckFrequency 2.
  static TcpProfile winxp();
  // OpenBSD, 3.9 [I] (§3): asks for timestamps and window scale; classic Nagle; BSD 16384 buffers
  // rounded to MSS; openbsd ACK policy, ackonpush 0; RFC 3390 initial cwnd; RTO min 1 s.
  static TcpProfile openbsd39();
};

// ---------------------------------------------------------------------------------------------
// Applications
// ---------------------------------------------------------------------------------------------

// ttcp -t: `writes` sends of `write_len` bytes. Under Cygwin each send may first be cut by the
// core chunk policy (the very code the real sender runs); every piece is one Winsock send.
struct TtcpTransmitterConfig {
  std::int64_t writes = 30000;                 // ttcp -n
  // ttcp -t --time: > 0 stops starting writes this long after the connection is up (at most
  // `writes`; a started write is finished), as the lab's timed runs do. 0: `writes` writes.
  Nanos duration = Nanos::zero();
  std::int64_t write_len = 8192;               // ttcp -l
  bool nonblocking = true;                     // Cygwin makes every socket nonblocking (§1)
  core::PolicyKind chunking = core::PolicyKind::none;
  std::int32_t chunk_mss_guess = 0;            // MSS the chunker assumes; 0 = link MTU - 40 (seed)
  // The application lets the chunk policy raise SO_SNDBUF (core SocketParams::allow_raise_sndbuf):
  // with `robust` the sender's send_buffer.size becomes the policy's recommended_sndbuf(write_len)
  // once the connection is up, before the first write, the policy knowing the window of the
  // peer's SYN-ACK (KB823764's second workaround, docs/STACKS.md §8).
  bool allow_raise_sndbuf = false;
  // From FD_WRITE to the retried send: WaitForMultipleObjects + thread wake-up (a Delay,
  // delay.h). The seed blames this wake-up for the patched-defaults row's 9.3 vs 11.1 MiB/s
  // [calibrated on that row, §6, together with TcpProfile::stack_latency].
  Delay wakeup{Nanos::us(200)};
  // CPU time of one completed send call (copy + syscall): a Delay (delay.h), drawn per send from
  // the run's RNG, in the application's order with `wakeup` (a constant draws nothing).
  Delay send_cost{Nanos::us(2)};
  bool close_when_done = true;                 // close() after the last write: FIN
};

// ttcp -r: blocking reads of up to `read_len` bytes (soreceive returns what is there, lowat 1).
struct TtcpReceiverConfig {
  std::int64_t read_len = 8192;
  // From data arriving to the blocked reader running (sk_data_ready -> the scheduler wakes it): a
  // Delay (delay.h), drawn per wake-up from the run's RNG. The lab measures it from a capture
  // (bench/lab_reader_latency.py; docs/VALIDATION.md §4, docs/STACKS.md §4): mostly an on-time
  // wake-up (quantiles of the delay from a pair's second segment to the read's ACK where pairs are
  // ACKed at the read, AckPolicyConfig::ack_at_read) and rare late ones, a rare-event term
  // ("N ppm * (...)") whose own spread is long-tailed, which no shifted exponential keeps.
  Delay read_wakeup{Nanos::us(15)};
  // CPU time of one read call that returned data: a Delay (delay.h), drawn per read from the
  // run's RNG, in the application's order with `read_wakeup` (a constant draws nothing).
  Delay read_cost{Nanos::us(2)};
};

// scp-like pipeline: the sending application pays `sender_cpu_ps_per_byte` before each write
// (ssh encryption), ahead of the socket by up to `sender_output_buffer` bytes: ssh's loops
// encrypt buffered input into packets (channel_output_poll) while its output buffer holds less
// than 128 KiB (OpenSSH packet.c packet_not_very_much_data_to_write; docs/STACKS.md §2), so
// encryption overlaps the socket's waits; the receiving application calls select() on the socket and a pipe before
// every read, pays the select teardown, then reads and pays `receiver_cpu_ps_per_byte`.
// Cygwin's select() starts a helper thread per pipe on every call (select.cc thread_pipe);
// tearing select down waits for that thread to stop: with the 2006 `Sleep(10)` loop until its
// current 10 ms sleep ends (a full quantum when data was already there), with the seed's event
// (and Cygwin since 2020, §2) after `event_wakeup`.
enum class SelectTeardown : std::uint8_t { sleep_loop, event };

// A random sleep_quantum's least draw: the teardown walks the sleeps one draw at a time, so this
// bounds its work to (wait / 100 us) draws. A bound of the model's cost, not of Windows.
inline constexpr Nanos kMinRandomSleepQuantum = Nanos::us(100);

struct ScpConfig {
  bool enabled = false;
  SelectTeardown teardown = SelectTeardown::sleep_loop;
  // How long each of thread_pipe's Sleep(10) calls lasts: a Delay (delay.h), one draw per sleep
  // from the run's RNG (a constant draws nothing: the teardown is then the next multiple of it).
  // A random one must never draw below kMinRandomSleepQuantum.
  Delay sleep_quantum{Nanos::ms(10)};
  // SetEvent -> thread exit: a Delay (delay.h), drawn per teardown from the run's RNG.
  Delay event_wakeup{Nanos::us(20)};
  std::int64_t sender_cpu_ps_per_byte = 0;    // picoseconds of CPU per byte written
  std::int64_t sender_output_buffer = 131072;  // bytes encrypted ahead of the socket (0: serially)
  std::int64_t receiver_cpu_ps_per_byte = 0;  // picoseconds of CPU per byte read
};

struct AppConfig {
  TtcpTransmitterConfig transmitter{};
  TtcpReceiverConfig receiver{};
  ScpConfig scp{};
};

enum class Initiator : std::uint8_t { sender, receiver };

// Addresses for traces (pcap); they change nothing in the model.
struct Addressing {
  std::uint32_t sender_ip = 0x0A000001;    // 10.0.0.1
  std::uint32_t receiver_ip = 0x0A000002;  // 10.0.0.2
  std::uint16_t sender_port = 1031;        // XP ephemeral range 1025-5000
  std::uint16_t receiver_port = 5001;      // ttcp's default port
};

struct ExperimentConfig {
  LinkConfig link{};
  TcpProfile sender = TcpProfile::winxp();        // the data sender (ttcp -t, Cygwin)
  TcpProfile receiver = TcpProfile::openbsd39();  // the data receiver (ttcp -r)
  AppConfig app{};
  Initiator initiator = Initiator::sender;        // ttcp -t connects to ttcp -r
  Addressing addressing{};
  std::uint64_t seed = 1;                         // the run's only RNG
  Nanos time_limit = Nanos::s(86400);             // stop (completed = false) past this
  // Waits longer than this count as stalls (Summary::stalls); shorter ones are totalled apart
  // (Summary::short_waits). core::kDefaultStallThreshold (20 ms), as `ackstall scan` and ttcp.
  core::StallThreshold stall_threshold = core::kDefaultStallThreshold;
};

// The first problem found, as an Error whose message is "field.path: problem".
core::Result<void> validate(const ExperimentConfig& cfg);

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

// Names used by scenarios and the CLI ("off", "classic", "afd", "bsd-tick", "linux-2.6", ...):
// one table per enum (src/sim/config.cc), in enum order; every listing of the choices (scenario
// key types, error messages) derives from these.
std::string_view to_string(NagleKind v) noexcept;
std::string_view to_string(SendBufferKind v) noexcept;
std::string_view to_string(AckPolicyKind v) noexcept;
std::string_view to_string(ReceiveWindowKind v) noexcept;
std::string_view to_string(SelectTeardown v) noexcept;
std::string_view to_string(Initiator v) noexcept;
std::optional<NagleKind> parse_nagle_kind(std::string_view s) noexcept;
std::optional<SendBufferKind> parse_send_buffer_kind(std::string_view s) noexcept;
std::optional<AckPolicyKind> parse_ack_policy_kind(std::string_view s) noexcept;
std::optional<ReceiveWindowKind> parse_receive_window_kind(std::string_view s) noexcept;
std::optional<SelectTeardown> parse_select_teardown(std::string_view s) noexcept;
std::optional<Initiator> parse_initiator(std::string_view s) noexcept;
std::span<const std::string_view> nagle_kind_names() noexcept;
std::span<const std::string_view> send_buffer_kind_names() noexcept;
std::span<const std::string_view> ack_policy_kind_names() noexcept;
std::span<const std::string_view> receive_window_kind_names() noexcept;
std::span<const std::string_view> select_teardown_names() noexcept;
std::span<const std::string_view> initiator_names() noexcept;
// "a, b, c": a names table as scenario key types and messages list it.
std::string join_names(std::span<const std::string_view> names);

}  // namespace ackstall::sim
