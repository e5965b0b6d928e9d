#include "ackstall/scenario/profiles.h"

#include <array>

namespace ackstall::scenario {
namespace {

using sim::AckPolicyKind;
using sim::NagleKind;
using sim::Nanos;
using sim::ReceiveWindowKind;
using sim::SendBufferKind;
using sim::TcpProfile;

// FreeBSD 6: the OpenBSD every-second-segment rule (DELAY_ACK: delay only if no delayed-ACK
// callout is active), tcp_delacktime = 100 ms, no ackonpush (§3). Buffers 32768 (FreeBSD 6
// net.inet.tcp.sendspace/recvspace [I]).
TcpProfile freebsd6() {
  TcpProfile p = TcpProfile::openbsd39();
  p.ack.kind = AckPolicyKind::freebsd;
  p.ack.delack_timeout = Nanos::ms(100);
  p.ack.ack_on_push = false;
  p.send_buffer.size = 32768;
  p.rcvbuf = 65536;
  return p;
}

// Pre-2001 BSD: delayed ACKs flushed on the global 200 ms fast-timeout tick (§3, NetBSD 1996).
TcpProfile bsd_tick() {
  TcpProfile p = TcpProfile::openbsd39();
  p.ack.kind = AckPolicyKind::bsd_tick;
  p.ack.tick = Nanos::ms(200);
  return p;
}

// Linux receivers (§4): Minshall Nagle, rcv_mss-rounded window, tcp_cleanup_rbuf window update;
// timestamps and window scale asked; initial cwnd 2 in 2.6 era [V/I], 10 today [V].
TcpProfile linux_common() {
  TcpProfile p;
  p.ask_timestamps = true;
  p.accept_timestamps = true;
  p.ask_window_scale = true;
  p.nagle = NagleKind::minshall;
  p.send_buffer = {SendBufferKind::bsd, 16384, false};
  p.receive_window = ReceiveWindowKind::linux;
  p.window_update_on_read = true;
  p.rcvbuf = 87380;  // tcp_rmem default [V]
  p.round_rcvbuf_to_mss = false;
  p.ack.ato_min = Nanos::ms(40);   // TCP_ATO_MIN
  p.ack.ato_max = Nanos::ms(200);  // TCP_DELACK_MAX
  p.ack.max_quickacks = 16;        // TCP_MAX_QUICKACKS
  p.rto_min = Nanos::ms(200);      // TCP_RTO_MIN
  p.rto_initial = Nanos::s(3);     // 2.6: TCP_TIMEOUT_INIT 3 s
  return p;
}

TcpProfile linux26() {
  TcpProfile p = linux_common();
  p.ack.kind = AckPolicyKind::linux_2_6;
  p.cwnd = {2, 2};
  return p;
}

TcpProfile linux_current() {
  TcpProfile p = linux_common();
  p.ack.kind = AckPolicyKind::linux;
  p.cwnd = {10, 10};
  p.rto_initial = Nanos::s(1);  // RFC 6298, TCP_TIMEOUT_INIT 1 s
  // Linux >= 5.4 (commit a337531b942b): tcp_rmem[1] 131072 and a SYN window of ~64 KB (the lab's
  // 6.18 offers 65160 = 45 x 1448 and reads tcp_rmem 4096 131072 ...); delayed-ACK timers on
  // jiffies, HZ 250 as Debian's kernels (the lab's stalls: docs/STACKS.md §7).
  p.rcvbuf = 131072;
  p.linux_initial_rwnd = 65535;
  p.ack.jiffy = Nanos::ms(4);
  return p;
}

// The lab's classic delayed-ACK receiver (§7): TCP_QUICKACK=0 re-set after every read; ACKs
// every second segment and delays a lone one ~40 ms, TCP_ATO_MIN on jiffies (as measured: §7).
TcpProfile linux_pingpong() {
  TcpProfile p = linux_current();
  p.ack.kind = AckPolicyKind::linux_pingpong;
  p.ack.delack_timeout = Nanos::us(42700);
  return p;
}

// ns-3 3.37 TcpSocketBase as run by peers/ns3: MSS 1460 (SegmentSize), no
// timestamps, byte-granular buffer accepting whole writes only, DelAckCount 2 / 200 ms, no PSH,
// no window update on read, NewReno, initial cwnd 10 (ns-3 InitialCwnd default).
TcpProfile ns3() {
  TcpProfile p;
  p.mss = 1460;
  p.ask_timestamps = false;
  p.accept_timestamps = false;
  p.ask_window_scale = false;
  p.nagle = NagleKind::classic;
  p.send_buffer = {SendBufferKind::ns3, 131072, false};
  p.ack.kind = AckPolicyKind::ns3;
  p.ack.delack_timeout = Nanos::ms(200);
  p.ack.ack_frequency = 2;
  p.receive_window = ReceiveWindowKind::ns3;
  p.window_update_on_read = false;
  p.rcvbuf = 131072;
  p.round_rcvbuf_to_mss = false;
  p.cwnd = {10, 0};
  p.rto_initial = Nanos::s(1);
  p.rto_min = Nanos::s(1);
  p.stack_latency = sim::Delay{};  // ns-3 processes a packet in zero simulated time
  p.fin_overrides_nagle = false;   // ns-3 SendPendingData keeps Nagle before the FIN
  return p;
}

// Windows as a receiver: 200 ms delayed ACK every TcpAckFrequency (2) segments (§1).
TcpProfile windows_receiver() { return TcpProfile::winxp(); }

constexpr std::array kProfiles = {
    NamedProfile{"winxp",
                 "Windows XP SP2 + Cygwin: AFD per-send SO_SNDBUF quota 8192, classic Nagle, "
                 "timestamps accepted but not asked, 200 ms delayed ACK (TcpAckFrequency 2)",
                 "docs/STACKS.md §1 (KB214397, KB823764, the seed); TcpAckFrequency [V MS]",
                 &TcpProfile::winxp},
    NamedProfile{"openbsd-3.9",
                 "OpenBSD 3.9: ACK every 2nd in-order segment, one-shot 200 ms timer, ackonpush 0; "
                 "16384 buffers rounded to MSS; RFC 3390 initial cwnd",
                 "docs/STACKS.md §3 (tcp_input.c, tcp_var.h, tcp_output.c 2005)",
                 &TcpProfile::openbsd39},
    NamedProfile{"bsd-tick",
                 "pre-2001 BSD: pending delayed ACKs flushed by a global 200 ms tick (0-200 ms)",
                 "docs/STACKS.md §3 (NetBSD 1996 tcp_fasttimo)", &bsd_tick},
    NamedProfile{"freebsd-6", "FreeBSD 6: every 2nd segment, 100 ms delayed-ACK callout",
                 "docs/STACKS.md §3 (DELAY_ACK, tcp_delacktime)", &freebsd6},
    NamedProfile{"linux-2.6",
                 "Linux 2.6: quickack on start/after idle, pingpong, adaptive ATO 40-200 ms, ACK "
                 "when a read drains a short/PSH segment; Minshall Nagle; initial cwnd 2",
                 "docs/STACKS.md §4 (__tcp_ack_snd_check, tcp_cleanup_rbuf, tcp_event_data_recv)",
                 &linux26},
    NamedProfile{"linux",
                 "current Linux (>= 5.4): as linux-2.6 plus ICSK_ACK_PUSHED2; initial cwnd 10; "
                 "tcp_rmem 131072, SYN window ~64 KB; delayed-ACK timer on 4 ms jiffies (HZ 250)",
                 "docs/STACKS.md §4, §7 (no stall in 84 lab runs)", &linux_current},
    NamedProfile{"linux-pingpong",
                 "Linux with TCP_QUICKACK=0 re-set after every read: classic ~40 ms delayed ACK "
                 "(42.7 ms at HZ=250), every 2nd segment ACKed",
                 "docs/STACKS.md §7 (measured in the lab)", &linux_pingpong},
    NamedProfile{"windows", "Windows as a receiver: 200 ms delayed ACK, TcpAckFrequency 2",
                 "docs/STACKS.md §1; KB328890 (TcpAckFrequency)", &windows_receiver},
    NamedProfile{"ns3",
                 "ns-3 3.37 TcpSocketBase: MSS 1460, no timestamps, whole-write send buffer, "
                 "DelAckCount 2 / 200 ms, no PSH, no window update on read",
                 "peers/ns3 (README, tcpbulk.cc)", &ns3},
};

sim::LinkConfig ppp_ns3() { return sim::LinkConfig::ppp(100'000'000, Nanos::us(50)); }

constexpr std::array kLinks = {
    NamedLink{"ethernet-100baset",
              "100BASE-T crossover: 100 Mbit/s full duplex, 38 bytes framing per frame, 64-byte "
              "minimum frame, MTU 1500",
              "docs/STACKS.md §5", &sim::LinkConfig::ethernet_100baset},
    NamedLink{"ppp-ns3", "ns-3 PointToPoint: 100 Mbit/s, 50 us, PPP 2 bytes per frame, MTU 1500",
              "peers/ns3/README.md", &ppp_ns3},
};

template <class T>
const T* find_in(std::span<const T> table, std::string_view name) noexcept {
  for (const T& e : table)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

std::span<const NamedProfile> tcp_profiles() noexcept { return kProfiles; }
std::span<const NamedLink> link_presets() noexcept { return kLinks; }
const NamedProfile* find_profile(std::string_view name) noexcept {
  return find_in(tcp_profiles(), name);
}
const NamedLink* find_link_preset(std::string_view name) noexcept {
  return find_in(link_presets(), name);
}

}  // namespace ackstall::scenario
