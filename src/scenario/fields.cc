#include "ackstall/scenario/fields.h"

#include "ackstall/core/units.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <vector>

namespace ackstall::scenario {
namespace {

using sim::ExperimentConfig;
using sim::Nanos;
using sim::TcpProfile;
using Setter = std::function<std::optional<std::string>(ExperimentConfig&, const Value&)>;

struct Field {
  FieldInfo info;
  Setter set;
};

std::string type_name(const Value& v) {
  switch (v.index()) {
    case 0: return "integer";
    case 1: return "boolean";
    case 2: return "float";
    default: return "string";
  }
}

template <class Int>
Setter int_setter(std::function<Int&(ExperimentConfig&)> at) {
  return [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
    const auto* i = std::get_if<std::int64_t>(&v);
    if (i == nullptr) return "expected an integer, got a " + type_name(v);
    if (*i < std::numeric_limits<Int>::min() || *i > std::numeric_limits<Int>::max())
      return "integer " + std::to_string(*i) + " out of range";
    at(c) = static_cast<Int>(*i);
    return std::nullopt;
  };
}

Setter bool_setter(std::function<bool&(ExperimentConfig&)> at) {
  return [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
    const auto* b = std::get_if<bool>(&v);
    if (b == nullptr) return "expected true or false, got a " + type_name(v);
    at(c) = *b;
    return std::nullopt;
  };
}

Setter duration_setter(std::function<Nanos&(ExperimentConfig&)> at) {
  return [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
    const auto* s = std::get_if<std::string>(&v);
    if (s == nullptr) return "expected a duration string like \"200ms\", got a " + type_name(v);
    const auto d = core::parse_duration_ns(*s);
    if (!d) return d.error().message();
    at(c) = Nanos(*d);
    return std::nullopt;
  };
}

Setter rate_setter(std::function<std::int64_t&(ExperimentConfig&)> at) {
  return [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      at(c) = *i;
      return std::nullopt;
    }
    const auto* s = std::get_if<std::string>(&v);
    if (s == nullptr) return "expected a rate like \"100mbit\", got a " + type_name(v);
    const auto r = core::parse_rate_bps(*s);
    if (!r) return r.error().message();
    at(c) = *r;
    return std::nullopt;
  };
}

template <class E>
Setter enum_setter(std::function<E&(ExperimentConfig&)> at,
                   std::optional<E> (*parse)(std::string_view) noexcept, std::string choices) {
  return [at, parse, choices](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
    const auto* s = std::get_if<std::string>(&v);
    if (s == nullptr) return "expected one of: " + choices + "; got a " + type_name(v);
    const auto e = parse(*s);
    if (!e) return "unknown value \"" + *s + "\" (expected one of: " + choices + ")";
    at(c) = *e;
    return std::nullopt;
  };
}

using ProfileAt = TcpProfile& (*)(ExperimentConfig&);

void add(std::vector<Field>& out, std::string path, std::string type, std::string desc,
         Setter set) {
  out.push_back({{std::move(path), std::move(type), std::move(desc)}, std::move(set)});
}

// The per-side TCP keys, registered once for `sender.` and once for `receiver.`.
void add_profile_fields(std::vector<Field>& f, const std::string& side, ProfileAt p) {
  const std::string s = side + ".";
  auto I32 = [&](std::string key, std::string desc, std::int32_t& (*at)(TcpProfile&)) {
    add(f, s + key, "integer", std::move(desc),
        int_setter<std::int32_t>([p, at](ExperimentConfig& c) -> std::int32_t& { return at(p(c)); }));
  };
  auto I64 = [&](std::string key, std::string desc, std::int64_t& (*at)(TcpProfile&)) {
    add(f, s + key, "integer", std::move(desc),
        int_setter<std::int64_t>([p, at](ExperimentConfig& c) -> std::int64_t& { return at(p(c)); }));
  };
  auto B = [&](std::string key, std::string desc, bool& (*at)(TcpProfile&)) {
    add(f, s + key, "boolean", std::move(desc),
        bool_setter([p, at](ExperimentConfig& c) -> bool& { return at(p(c)); }));
  };
  auto D = [&](std::string key, std::string desc, Nanos& (*at)(TcpProfile&)) {
    add(f, s + key, "duration", std::move(desc),
        duration_setter([p, at](ExperimentConfig& c) -> Nanos& { return at(p(c)); }));
  };
  I32("mss", "MSS option announced; 0 = link MTU - 40", [](TcpProfile& t) -> auto& { return t.mss; });
  B("ask_timestamps", "send the timestamps option in our SYN",
    [](TcpProfile& t) -> auto& { return t.ask_timestamps; });
  B("accept_timestamps", "answer a SYN that asked for timestamps",
    [](TcpProfile& t) -> auto& { return t.accept_timestamps; });
  B("ask_window_scale", "send a window-scale option in our SYN",
    [](TcpProfile& t) -> auto& { return t.ask_window_scale; });
  const std::string nagle = sim::join_names(sim::nagle_kind_names());
  add(f, s + "nagle", "one of: " + nagle, "Nagle variant",
      enum_setter<sim::NagleKind>([p](ExperimentConfig& c) -> auto& { return p(c).nagle; },
                                  &sim::parse_nagle_kind, nagle));
  B("fin_overrides_nagle", "a queued FIN sends a short segment past Nagle (BSD, Linux)",
    [](TcpProfile& t) -> auto& { return t.fin_overrides_nagle; });
  const std::string sndbuf = sim::join_names(sim::send_buffer_kind_names());
  add(f, s + "send_buffer.kind", "one of: " + sndbuf, "send-buffer accounting",
      enum_setter<sim::SendBufferKind>(
          [p](ExperimentConfig& c) -> auto& { return p(c).send_buffer.kind; },
          &sim::parse_send_buffer_kind, sndbuf));
  I64("send_buffer.size", "SO_SNDBUF in bytes", [](TcpProfile& t) -> auto& { return t.send_buffer.size; });
  B("send_buffer.kb214397_literal", "afd: apply KB214397 rule 2 to nonblocking sends",
    [](TcpProfile& t) -> auto& { return t.send_buffer.kb214397_literal; });
  const std::string ack = sim::join_names(sim::ack_policy_kind_names());
  add(f, s + "ack.kind", "one of: " + ack, "delayed-ACK policy",
      enum_setter<sim::AckPolicyKind>(
          [p](ExperimentConfig& c) -> auto& { return p(c).ack.kind; }, &sim::parse_ack_policy_kind, ack));
  D("ack.delack_timeout", "delayed-ACK timer", [](TcpProfile& t) -> auto& { return t.ack.delack_timeout; });
  B("ack.ack_on_push", "ACK at once a segment with PSH (OpenBSD net.inet.tcp.ackonpush)",
    [](TcpProfile& t) -> auto& { return t.ack.ack_on_push; });
  I32("ack.ack_frequency", "windows TcpAckFrequency / ns3 DelAckCount",
      [](TcpProfile& t) -> auto& { return t.ack.ack_frequency; });
  D("ack.tick", "bsd-tick: period of the global tick", [](TcpProfile& t) -> auto& { return t.ack.tick; });
  D("ack.ato_min", "linux: TCP_ATO_MIN", [](TcpProfile& t) -> auto& { return t.ack.ato_min; });
  D("ack.ato_max", "linux: TCP_DELACK_MAX", [](TcpProfile& t) -> auto& { return t.ack.ato_max; });
  I32("ack.max_quickacks", "linux: TCP_MAX_QUICKACKS", [](TcpProfile& t) -> auto& { return t.ack.max_quickacks; });
  const std::string rwin = sim::join_names(sim::receive_window_kind_names());
  add(f, s + "receive_window", "one of: " + rwin, "advertised-window rule",
      enum_setter<sim::ReceiveWindowKind>(
          [p](ExperimentConfig& c) -> auto& { return p(c).receive_window; },
          &sim::parse_receive_window_kind, rwin));
  B("window_update_on_read", "send a window update when a read opens the window",
    [](TcpProfile& t) -> auto& { return t.window_update_on_read; });
  I64("rcvbuf", "SO_RCVBUF in bytes", [](TcpProfile& t) -> auto& { return t.rcvbuf; });
  B("round_rcvbuf_to_mss", "round the receive buffer up to whole MSS (BSD)",
    [](TcpProfile& t) -> auto& { return t.round_rcvbuf_to_mss; });
  I32("cwnd.initial_segments", "initial cwnd in segments; 0 = RFC 3390",
      [](TcpProfile& t) -> auto& { return t.cwnd.initial_segments; });
  I32("cwnd.after_idle_segments", "cwnd after an idle RTO; 0 = no restart",
      [](TcpProfile& t) -> auto& { return t.cwnd.after_idle_segments; });
  D("rto_initial", "initial retransmission timeout", [](TcpProfile& t) -> auto& { return t.rto_initial; });
  D("rto_min", "minimum retransmission timeout", [](TcpProfile& t) -> auto& { return t.rto_min; });
  D("stack_latency", "frame arrival to the stack's reaction", [](TcpProfile& t) -> auto& { return t.stack_latency; });
}

std::vector<Field> build_fields() {
  std::vector<Field> f;
  using C = ExperimentConfig;
  add(f, "link.rate", "rate", "link rate", rate_setter([](C& c) -> auto& { return c.link.rate_bps; }));
  add(f, "link.prop_delay", "duration", "propagation delay",
      duration_setter([](C& c) -> auto& { return c.link.prop_delay; }));
  add(f, "link.mtu", "integer", "IP MTU in bytes",
      int_setter<std::int32_t>([](C& c) -> auto& { return c.link.mtu; }));
  add(f, "link.framing_overhead", "integer", "bytes per frame beyond the IP packet",
      int_setter<std::int32_t>([](C& c) -> auto& { return c.link.framing_overhead; }));
  add(f, "link.min_frame", "integer", "minimum frame in bytes (padded)",
      int_setter<std::int32_t>([](C& c) -> auto& { return c.link.min_frame; }));
  add(f, "link.frame_gap", "integer", "framing bytes outside the minimum frame",
      int_setter<std::int32_t>([](C& c) -> auto& { return c.link.frame_gap; }));
  add(f, "link.queue_limit_packets", "integer", "drop-tail queue per direction",
      int_setter<std::int32_t>([](C& c) -> auto& { return c.link.queue_limit_packets; }));
  add_profile_fields(f, "sender", [](C& c) -> TcpProfile& { return c.sender; });
  add_profile_fields(f, "receiver", [](C& c) -> TcpProfile& { return c.receiver; });

  const std::string t = "app.transmitter.";
  add(f, t + "writes", "integer", "ttcp -n: number of writes",
      int_setter<std::int64_t>([](C& c) -> auto& { return c.app.transmitter.writes; }));
  add(f, t + "write_len", "integer", "ttcp -l: bytes per write",
      int_setter<std::int64_t>([](C& c) -> auto& { return c.app.transmitter.write_len; }));
  add(f, t + "nonblocking", "boolean", "nonblocking sends (Cygwin)",
      bool_setter([](C& c) -> auto& { return c.app.transmitter.nonblocking; }));
  add(f, t + "chunking", "one of: none, seed, cygwin", "chunk policy (core::ChunkPolicy)",
      enum_setter<core::PolicyKind>([](C& c) -> auto& { return c.app.transmitter.chunking; },
                                    &core::parse_policy_kind, "none, seed, cygwin"));
  add(f, t + "chunk_mss_guess", "integer", "MSS the chunker assumes; 0 = MTU - 40",
      int_setter<std::int32_t>([](C& c) -> auto& { return c.app.transmitter.chunk_mss_guess; }));
  add(f, t + "wakeup_latency", "duration", "FD_WRITE to the retried send",
      duration_setter([](C& c) -> auto& { return c.app.transmitter.wakeup_latency; }));
  add(f, t + "wakeup_jitter", "duration", "extra uniform wake-up delay",
      duration_setter([](C& c) -> auto& { return c.app.transmitter.wakeup_jitter; }));
  add(f, t + "send_cost", "duration", "CPU time of one send call",
      duration_setter([](C& c) -> auto& { return c.app.transmitter.send_cost; }));
  add(f, t + "close_when_done", "boolean", "close (FIN) after the last write",
      bool_setter([](C& c) -> auto& { return c.app.transmitter.close_when_done; }));
  const std::string r = "app.receiver.";
  add(f, r + "read_len", "integer", "bytes per read",
      int_setter<std::int64_t>([](C& c) -> auto& { return c.app.receiver.read_len; }));
  add(f, r + "read_latency", "duration", "wake-up of a blocked reader",
      duration_setter([](C& c) -> auto& { return c.app.receiver.read_latency; }));
  add(f, r + "read_cost", "duration", "CPU time of one read call",
      duration_setter([](C& c) -> auto& { return c.app.receiver.read_cost; }));
  const std::string s = "app.scp.";
  add(f, s + "enabled", "boolean", "scp-like pipeline instead of plain ttcp",
      bool_setter([](C& c) -> auto& { return c.app.scp.enabled; }));
  const std::string teardown = sim::join_names(sim::select_teardown_names());
  add(f, s + "teardown", "one of: " + teardown, "select() pipe-thread teardown",
      enum_setter<sim::SelectTeardown>([](C& c) -> auto& { return c.app.scp.teardown; },
                                       &sim::parse_select_teardown, teardown));
  add(f, s + "sleep_quantum", "duration", "thread_pipe's Sleep()",
      duration_setter([](C& c) -> auto& { return c.app.scp.sleep_quantum; }));
  add(f, s + "event_wakeup", "duration", "SetEvent to thread exit",
      duration_setter([](C& c) -> auto& { return c.app.scp.event_wakeup; }));
  add(f, s + "sender_cpu_ps_per_byte", "integer", "sender CPU picoseconds per byte",
      int_setter<std::int64_t>([](C& c) -> auto& { return c.app.scp.sender_cpu_ps_per_byte; }));
  add(f, s + "receiver_cpu_ps_per_byte", "integer", "receiver CPU picoseconds per byte",
      int_setter<std::int64_t>([](C& c) -> auto& { return c.app.scp.receiver_cpu_ps_per_byte; }));
  const std::string initiator = sim::join_names(sim::initiator_names());
  add(f, "initiator", "one of: " + initiator, "which side opens the connection",
      enum_setter<sim::Initiator>([](C& c) -> auto& { return c.initiator; }, &sim::parse_initiator,
                                  initiator));
  add(f, "seed", "integer", "the run's RNG seed", [](C& c, const Value& v) -> std::optional<std::string> {
    const auto* i = std::get_if<std::int64_t>(&v);
    if (i == nullptr || *i < 0) return "expected a non-negative integer";
    c.seed = static_cast<std::uint64_t>(*i);
    return std::nullopt;
  });
  add(f, "time_limit", "duration", "stop the run past this simulated time",
      duration_setter([](C& c) -> auto& { return c.time_limit; }));
  return f;
}

const std::vector<Field>& table() {
  static const std::vector<Field> kTable = build_fields();
  return kTable;
}

const std::vector<FieldInfo>& infos() {
  static const std::vector<FieldInfo> kInfos = [] {
    std::vector<FieldInfo> out;
    for (const Field& f : table()) out.push_back(f.info);
    return out;
  }();
  return kInfos;
}

}  // namespace

std::span<const FieldInfo> fields() { return infos(); }

core::Result<void> set_field(ExperimentConfig& cfg, std::string_view path, const Value& value) {
  for (const Field& f : table()) {
    if (f.info.path != path) continue;
    if (auto err = f.set(cfg, value)) return core::fail(std::string(path) + ": " + *err);
    return {};
  }
  return core::fail(std::string(path) + ": unknown key");
}

}  // namespace ackstall::scenario
