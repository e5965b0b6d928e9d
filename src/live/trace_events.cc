#include "ackstall/live/trace_events.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace ackstall::live {
namespace {

// A retransmission this close after a probe ran in that ACK's softirq (a fast retransmit).
constexpr std::uint64_t kSameSoftirqNs = 1'000'000;
constexpr int kCaRecovery = 3, kCaLoss = 4;  // TCP_CA_Recovery, TCP_CA_Loss (include/net/tcp.h)

// tcp_probe's saddr/daddr: a struct sockaddr_in or sockaddr_in6 (include/trace/events/tcp.h).
std::string sockaddr_text(std::span<const std::byte> record, const FieldFormat* f) {
  if (f == nullptr || f->offset + f->size > record.size() || f->size < sizeof(sockaddr_in)) return "?";
  sockaddr_in6 a6{};
  std::memcpy(&a6, record.data() + f->offset, std::min(f->size, sizeof a6));
  char buf[INET6_ADDRSTRLEN] = {};
  if (a6.sin6_family == AF_INET) {
    sockaddr_in a4{};
    std::memcpy(&a4, record.data() + f->offset, sizeof a4);
    inet_ntop(AF_INET, &a4.sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(ntohs(a4.sin_port));
  }
  if (a6.sin6_family == AF_INET6 && f->size >= sizeof a6) {
    inet_ntop(AF_INET6, &a6.sin6_addr, buf, sizeof buf);
    return "[" + std::string(buf) + "]:" + std::to_string(ntohs(a6.sin6_port));
  }
  return "?";
}

struct Need {
  std::string_view event;
  TraceKind kind;
  std::vector<std::string_view> fields;
};

}  // namespace

EventSchema EventSchema::make(const std::vector<EventFormat>& formats) {
  const Need needs[] = {
      {"tcp/tcp_probe", TraceKind::probe, {"skaddr", "sport", "dport", "snd_nxt", "snd_una"}},
      {"sock/sock_send_length", TraceKind::send, {"sk", "ret"}},
      {"tcp/tcp_retransmit_skb", TraceKind::retransmit, {"skaddr", "sport", "dport"}},
      {"sock/inet_sock_set_state", TraceKind::set_state, {"skaddr", "sport", "dport", "newstate"}},
      {"tcp/tcp_cong_state_set", TraceKind::cong_state, {"skaddr", "sport", "dport", "cong_state"}},
  };
  EventSchema s;
  for (const Need& n : needs) {
    const EventFormat* f = nullptr;
    for (const EventFormat& e : formats) if (e.name == n.event) f = &e;
    if (f == nullptr) {
      s.missing_.push_back("this kernel has no tracepoint " + std::string(n.event) +
                           (n.kind == TraceKind::cong_state
                                ? " (Linux 6.0+): loss recoveries are timed from ACKs and retransmissions"
                                : ": its events are not shown"));
      continue;
    }
    bool complete = true;
    for (const std::string_view field : n.fields) {
      if (f->field(field) == nullptr) {
        s.missing_.push_back("tracepoint " + std::string(n.event) + " has no field '" + std::string(field) +
                             "' in this kernel: its events are not shown");
        complete = false;
      }
    }
    if (complete) s.by_id_.emplace(f->id, Known{n.kind, *f});
  }
  return s;
}

std::optional<TraceEvent> EventSchema::decode(std::uint64_t ts_ns, std::span<const std::byte> record) const {
  if (record.size() < 2) return std::nullopt;
  std::uint16_t type = 0;
  std::memcpy(&type, record.data(), sizeof type);  // common_type, offset 0 in every format
  const auto it = by_id_.find(type);
  if (it == by_id_.end()) return std::nullopt;
  const EventFormat& f = it->second.format;
  const auto get = [&](std::string_view name) -> std::uint64_t {
    const FieldFormat* ff = f.field(name);
    return ff ? read_field(record, *ff).value_or(0) : 0;
  };
  TraceEvent e;
  e.kind = it->second.kind;
  e.ts_ns = ts_ns;
  switch (e.kind) {
    case TraceKind::probe:
      e.sk = get("skaddr");
      e.snd_nxt = static_cast<std::uint32_t>(get("snd_nxt"));
      e.snd_una = static_cast<std::uint32_t>(get("snd_una"));
      e.srtt_us = static_cast<std::uint32_t>(get("srtt"));
      e.local = sockaddr_text(record, f.field("saddr"));
      e.remote = sockaddr_text(record, f.field("daddr"));
      break;
    case TraceKind::send: {
      e.sk = get("sk");
      const FieldFormat* ret = f.field("ret");
      std::int64_t v = static_cast<std::int64_t>(get("ret"));
      if (ret->is_signed && ret->size == 4) v = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
      e.length = v;
      break;
    }
    case TraceKind::retransmit: e.sk = get("skaddr"); break;
    case TraceKind::set_state:
      e.sk = get("skaddr");
      e.new_state = static_cast<int>(get("newstate"));
      break;
    case TraceKind::cong_state:
      e.sk = get("skaddr");
      e.new_state = static_cast<int>(get("cong_state"));
      break;
  }
  if (e.kind != TraceKind::send) {
    e.sport = static_cast<std::uint16_t>(get("sport"));
    e.dport = static_cast<std::uint16_t>(get("dport"));
  }
  return e;
}

void StallDetector::end_recovery(Socket& s, std::uint64_t at_ns) {
  if (s.recovery_start == 0) return;
  if (at_ns > s.counted_to) recoveries_.push_back({at_ns, s.local, s.remote, static_cast<std::int64_t>(at_ns - s.counted_to)});
  s.recovery_start = 0;
  s.recover_point.reset();
}

void StallDetector::settle(Socket& s, std::uint64_t ts_ns, Went went) {
  if (!s.held) return;
  const auto after = static_cast<std::int64_t>(ts_ns - s.held->ts_ns);
  const bool in_time = after <= s.held->path_ns + threshold_ns_ / 2;
  if (went == Went::at_the_ack || (went == Went::written && in_time)) {
    stalls_.push_back(*s.held);
  } else if (!in_time) {
    // Released late or never (a write after the bound, or nothing): the application's wait.
  } else {
    return;  // nothing yet: still held
  }
  s.held.reset();
}

void StallDetector::feed(const TraceEvent& e) {
  ++events_;
  constexpr int kTcpFinWait2 = 5, kTcpTimeWait = 6, kTcpClose = 7;  // include/net/tcp_states.h
  switch (e.kind) {
    case TraceKind::send: {
      // Sends of sockets never seen in a (port-filtered) probe are not watched.
      const auto it = sockets_.find(e.sk);
      if (it == sockets_.end() || e.length <= 0) return;
      ++sends_;
      settle(it->second, e.ts_ns, Went::written);
      it->second.last_send = e.length;
      it->second.last_send_ts = e.ts_ns;
      it->second.last_activity = e.ts_ns;
      return;
    }
    case TraceKind::cong_state:
      kernel_states_ = true;
      if (const auto it = sockets_.find(e.sk); it != sockets_.end()) {
        Socket& s = it->second;
        s.last_activity = std::max(s.last_activity, e.ts_ns);
        // The recovery is timed from its first retransmission, as a capture shows it (scan's rule):
        // the kernel may enter the state a few milliseconds earlier and send it later (pacing,
        // PRR: RFC 6937), or leave it without one (the "lost" segments were ACKed after all).
        s.kernel_recovery = e.new_state == kCaRecovery || e.new_state == kCaLoss;
        if (!s.kernel_recovery) end_recovery(s, e.ts_ns);
      }
      return;
    case TraceKind::retransmit:
      if (const auto it = sockets_.find(e.sk); it != sockets_.end()) {
        Socket& s = it->second;
        s.retransmitted = true;
        if (kernel_states_ && s.kernel_recovery && s.recovery_start == 0) s.recovery_start = s.counted_to = e.ts_ns;
        if (!kernel_states_ && s.recovery_start == 0) {
          s.recovery_start = s.counted_to = e.ts_ns;
          // A fast retransmit runs in the softirq of the ACK whose probe fired just before it: that
          // probe's snd_nxt is the recovery point (tcp_enter_recovery: high_seq = snd_nxt). A
          // timeout's (tcp_retransmit_timer) has none: the next probe's snd_nxt stands for it.
          s.recover_point.reset();
          if (s.last_probe_ts != 0 && e.ts_ns - s.last_probe_ts < kSameSoftirqNs) s.recover_point = s.snd_nxt;
        }
      }
      return;
    case TraceKind::set_state:
      if (const auto it = sockets_.find(e.sk); it != sockets_.end()) {
        constexpr int kTcpFinWait1 = 4;
        if (e.new_state == kTcpFinWait1) settle(it->second, e.ts_ns, Went::written);  // closed: its FIN goes
        // FIN_WAIT2 and after: the peer ACKed everything, the FIN too.
        if (e.new_state == kTcpFinWait2 || e.new_state == kTcpTimeWait || e.new_state == kTcpClose) {
          end_recovery(it->second, e.ts_ns);
        }
        if (e.new_state == kTcpClose) sockets_.erase(it);
      }
      return;
    case TraceKind::probe: ++acks_; break;
  }
  Socket& s = sockets_[e.sk];
  if (s.local.empty()) {
    s.local = e.local;
    s.remote = e.remote;
  }
  if (e.srtt_us > 0 && (s.min_srtt < 0 || std::int64_t{e.srtt_us} * 1000 < s.min_srtt)) s.min_srtt = std::int64_t{e.srtt_us} * 1000;
  // Data left since the held stall's ACK without a write: the ACK released queued data (Nagle's,
  // the congestion window's) as it came, whenever this later probe shows it.
  settle(s, e.ts_ns, s.held && e.snd_nxt != s.held_nxt ? Went::at_the_ack : Went::not_yet);
  const std::uint32_t outstanding = e.snd_nxt - e.snd_una;
  if (s.last_activity != 0 && outstanding > 0 && e.ts_ns > s.last_activity) {
    const auto wait = static_cast<std::int64_t>(e.ts_ns - s.last_activity);
    if (s.shortest_wait < 0 || wait < s.shortest_wait) s.shortest_wait = wait;
    const std::int64_t path = std::max(s.shortest_wait, s.min_srtt);
    if (wait - path >= threshold_ns_) {
      const EventStall st{e.ts_ns, s.local, s.remote, wait, path, s.last_send, outstanding,
                          s.retransmitted ? core::LimitCause::loss : core::LimitCause::delayed_ack};
      if (st.cause == core::LimitCause::loss) {
        stalls_.push_back(st);
      } else {
        s.held = st;
        s.held_nxt = e.snd_nxt;
      }
    }
  }
  s.retransmitted = false;
  s.last_activity = e.ts_ns;
  if (!kernel_states_ && s.recovery_start != 0) {
    if (!s.recover_point) {
      s.recover_point = e.snd_nxt;
    } else if (static_cast<std::int32_t>(e.snd_una - *s.recover_point) >= 0) {  // sequence space wraps
      // snd_una here is the previous ACK's doing: that ACK, at the previous probe, ended it.
      end_recovery(s, std::max(s.last_probe_ts, s.recovery_start));
    }
  }
  s.last_probe_ts = e.ts_ns;
  s.snd_nxt = e.snd_nxt;
}

std::vector<EventRecovery> StallDetector::take_recoveries(std::uint64_t now_ns) {
  for (auto& [sk, s] : sockets_) {
    // Up to now (or the socket's latest event); without the kernel's states, its latest ACK (the
    // recovery may have ended there, which the next one shows).
    const std::uint64_t to = kernel_states_ ? std::max(now_ns, s.last_activity) : s.last_probe_ts;
    if (s.recovery_start != 0 && to > s.counted_to) {
      recoveries_.push_back({to, s.local, s.remote, static_cast<std::int64_t>(to - s.counted_to)});
      s.counted_to = to;
    }
  }
  std::vector<EventRecovery> out;
  out.swap(recoveries_);
  return out;
}

std::vector<EventStall> StallDetector::take() {
  std::vector<EventStall> out;
  out.swap(stalls_);
  return out;
}

}  // namespace ackstall::live
