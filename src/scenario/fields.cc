#include "ackstall/scenario/fields.h"

#include "ackstall/core/suggest.h"
#include "ackstall/core/units.h"
#include "ackstall/scenario/profiles.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <typeindex>
#include <vector>

namespace ackstall::scenario {
namespace {

using sim::ExperimentConfig;
using sim::Nanos;
using sim::TcpProfile;
using Setter = std::function<std::optional<std::string>(ExperimentConfig&, const Value&)>;
using Getter = std::function<std::string(const ExperimentConfig&)>;
// Where a key's value lives in a config: the member's address and type (field_at).
struct Member {
  const void* address;
  std::type_index type;
};
using Where = std::function<Member(const ExperimentConfig&)>;
template <class T>
using At = std::function<T&(ExperimentConfig&)>;

// How one key is written, read and described.
struct Codec {
  FieldKind kind;
  std::string type;
  Setter set;
  Getter get;
  Where where{};  // empty for an old name (it sets one term of another key's member)
};

struct Field {
  FieldInfo info;
  Setter set;
  Getter get;
  Where where;
};

std::string type_name(const Value& v) {
  switch (v.index()) {
    case 0: return "integer";
    case 1: return "boolean";
    case 2: return "float";
    default: return "string";
  }
}

// Reads through a setter's accessor: the accessors take a mutable config, the getter only reads.
template <class T>
const T& read(const At<T>& at, const ExperimentConfig& c) {
  return at(const_cast<ExperimentConfig&>(c));
}

template <class T>
Where where(At<T> at) {
  return [at](const ExperimentConfig& c) { return Member{&read(at, c), typeid(T)}; };
}

template <class Int>
std::optional<std::string> store_int(Int& field, std::int64_t i) {
  if (i < std::numeric_limits<Int>::min() || i > std::numeric_limits<Int>::max())
    return "integer " + std::to_string(i) + " out of range";
  field = static_cast<Int>(i);
  return std::nullopt;
}

template <class Int>
Codec integer(At<Int> at) {
  return {FieldKind::integer, "integer",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* i = std::get_if<std::int64_t>(&v);
            if (i == nullptr) return "expected an integer, got a " + type_name(v);
            return store_int(at(c), *i);
          },
          [at](const ExperimentConfig& c) { return std::to_string(read(at, c)); }, where(at)};
}

// Bytes: an integer, or a size string in core's grammar ("8k").
template <class Int>
Codec size(At<Int> at) {
  return {FieldKind::size, "size",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            if (const auto* i = std::get_if<std::int64_t>(&v)) return store_int(at(c), *i);
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr) return "expected a size like 8192 or \"8k\", got a " + type_name(v);
            const auto n = core::parse_size(*s);
            if (!n) return n.error().message();
            if (*n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
              return "size " + *s + " out of range";
            return store_int(at(c), static_cast<std::int64_t>(*n));
          },
          [at](const ExperimentConfig& c) {
            const auto v = read(at, c);
            return v < 0 ? std::to_string(v) : core::format_size(static_cast<std::uint64_t>(v));
          },
          where(at)};
}

// SO_SNDBUF: a size, or "unset" (the application never sets it: Windows 7+ dynamic send
// buffering, SendBufferConfig::unset; the size becomes Cygwin's wmem () default,
// sim::kCygwinUnsetWmem, docs/STACKS.md §2). A size clears `unset`.
Codec sndbuf_size(At<sim::SendBufferConfig> at) {
  const Codec bytes = size(At<std::int64_t>([at](ExperimentConfig& c) -> std::int64_t& { return at(c).size; }));
  return {FieldKind::size, "size or \"unset\"",
          [at, set = bytes.set](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            if (const auto* s = std::get_if<std::string>(&v); s != nullptr && *s == "unset") {
              at(c).unset = true;
              at(c).size = sim::kCygwinUnsetWmem;
              return std::nullopt;
            }
            if (v.index() == 3 && core::parse_size(std::get<std::string>(v)).has_value() == false)
              return "expected a size like 8192 or \"8k\", or \"unset\"; got \"" + std::get<std::string>(v) + "\"";
            if (auto e = set(c, v)) return e;
            at(c).unset = false;
            return std::nullopt;
          },
          [at, get = bytes.get](const ExperimentConfig& c) {
            return read(at, c).unset ? std::string("unset") : get(c);
          },
          bytes.where};
}

Codec boolean(At<bool> at) {
  return {FieldKind::boolean, "boolean",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* b = std::get_if<bool>(&v);
            if (b == nullptr) return "expected true or false, got a " + type_name(v);
            at(c) = *b;
            return std::nullopt;
          },
          [at](const ExperimentConfig& c) { return std::string(read(at, c) ? "true" : "false"); }, where(at)};
}

// A duration; D is sim::Nanos or core::StallThreshold (std::chrono::nanoseconds).
template <class D>
Codec duration_as(At<D> at) {
  return {FieldKind::duration, "duration",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr) return "expected a duration string like \"200ms\", got a " + type_name(v);
            const auto d = core::parse_duration_ns(*s);
            if (!d) return d.error().message();
            at(c) = D(*d);
            return std::nullopt;
          },
          [at](const ExperimentConfig& c) { return core::format_duration_ns(read(at, c).count()); }, where(at)};
}

Codec duration(At<Nanos> at) { return duration_as<Nanos>(std::move(at)); }

// A delay in sim's one grammar (sim/delay.h): "15us + exp(30us)", "quantiles(1us,5us)", "none".
Codec delay(At<sim::Delay> at) {
  return {FieldKind::delay, "delay",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr) return "expected a delay string like \"15us + exp(30us)\", got a " + type_name(v);
            auto d = sim::Delay::parse(*s);
            if (!d) return d.error().message();
            at(c) = std::move(*d);
            return std::nullopt;
          },
          [at](const ExperimentConfig& c) { return read(at, c).to_string(); }, where(at)};
}

// An old key (one release, then gone) sets one term of a delay key: the term of KIND, inside the
// delay's rare-event term when IN_RARE (sim::Delay::with: replaced, or inserted at its kind's
// place, so the old keys in any order give the draws they always gave).
sim::Delay with_term(const sim::Delay& d, sim::DelayTerm t, bool in_rare) {
  if (!in_rare) return d.with(std::move(t));
  const sim::DelayTerm* found = d.find(sim::DelayKind::rare);
  sim::DelayTerm rare = found != nullptr ? *found : sim::DelayTerm{.kind = sim::DelayKind::rare};
  const sim::Delay inner = sim::Delay(rare.terms).with(std::move(t));
  rare.terms.assign(inner.terms().begin(), inner.terms().end());
  return d.with(std::move(rare));
}

const sim::DelayTerm* find_term(const sim::Delay& d, sim::DelayKind kind, bool in_rare) {
  if (!in_rare) return d.find(kind);
  const sim::DelayTerm* rare = d.find(sim::DelayKind::rare);
  if (rare == nullptr) return nullptr;
  for (const sim::DelayTerm& t : rare->terms)
    if (t.kind == kind) return &t;
  return nullptr;
}

// The old duration keys: a constant, uniform's span or exponential's mean.
Codec duration_term(At<sim::Delay> at, sim::DelayKind kind, bool in_rare) {
  return {FieldKind::duration, "duration",
          [at, kind, in_rare](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr) return "expected a duration string like \"200ms\", got a " + type_name(v);
            const auto d = core::parse_duration_ns(*s);
            if (!d) return d.error().message();
            at(c) = with_term(at(c), {.kind = kind, .value = Nanos(*d)}, in_rare);
            return std::nullopt;
          },
          [at, kind, in_rare](const ExperimentConfig& c) {
            const sim::DelayTerm* t = find_term(read(at, c), kind, in_rare);
            return core::format_duration_ns(t != nullptr ? t->value.count() : 0);
          }};
}

// The old list keys: quantiles or a trace ("none": no term).
Codec list_term(At<sim::Delay> at, sim::DelayKind kind, bool in_rare) {
  return {FieldKind::durations, "durations",
          [at, kind, in_rare](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr) return "expected a string of durations like \"220us,2ms\", got a " + type_name(v);
            sim::DelayTerm t{.kind = kind};
            if (*s != "none" && !s->empty()) {
              for (const std::string_view item : core::split_list(*s)) {
                const std::string n = "item " + std::to_string(t.points.size() + 1) + ": ";
                if (item.empty()) return n + "empty";
                const auto d = core::parse_duration_ns(item);
                if (!d) return n + d.error().message();
                t.points.emplace_back(*d);
              }
            }
            at(c) = with_term(at(c), std::move(t), in_rare);
            return std::nullopt;
          },
          [at, kind, in_rare](const ExperimentConfig& c) {
            const sim::DelayTerm* t = find_term(read(at, c), kind, in_rare);
            std::string out;
            if (t != nullptr)
              for (const Nanos d : t->points) out += (out.empty() ? "" : ",") + core::format_duration_ns(d.count());
            return out.empty() ? std::string("none") : out;
          }};
}

// The old ppm key: the rare-event term's rate.
Codec ppm_term(At<sim::Delay> at) {
  return {FieldKind::integer, "integer",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* i = std::get_if<std::int64_t>(&v);
            if (i == nullptr) return "expected an integer, got a " + type_name(v);
            const sim::DelayTerm* found = at(c).find(sim::DelayKind::rare);
            sim::DelayTerm rare = found != nullptr ? *found : sim::DelayTerm{.kind = sim::DelayKind::rare};
            rare.ppm = *i;
            at(c) = at(c).with(std::move(rare));
            return std::nullopt;
          },
          [at](const ExperimentConfig& c) {
            const sim::DelayTerm* t = read(at, c).find(sim::DelayKind::rare);
            return std::to_string(t != nullptr ? t->ppm : 0);
          }};
}

Codec rate(At<std::int64_t> at) {
  return {FieldKind::rate, "rate",
          [at](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
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
          },
          [at](const ExperimentConfig& c) { return core::format_rate_bps(read(at, c)); }, where(at)};
}

template <class Names>
std::string join(const Names& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// An enum key: PARSE and NAME come from the enum's one name table.
template <class E>
Codec enumeration(At<E> at, std::optional<E> (*parse)(std::string_view) noexcept,
                  std::string_view (*name)(E) noexcept, std::string choices) {
  return {FieldKind::enumeration, "one of: " + choices,
          [at, parse, choices](ExperimentConfig& c, const Value& v) -> std::optional<std::string> {
            const auto* s = std::get_if<std::string>(&v);
            if (s == nullptr) return "expected one of: " + choices + "; got a " + type_name(v);
            const auto e = parse(*s);
            if (!e) return "unknown value \"" + *s + "\" (expected one of: " + choices + ")";
            at(c) = *e;
            return std::nullopt;
          },
          [at, name](const ExperimentConfig& c) { return std::string(name(read(at, c))); }, where(at)};
}

using ProfileAt = TcpProfile& (*)(ExperimentConfig&);
template <class T>
using Fn = T& (*)(TcpProfile&);

void add(std::vector<Field>& out, std::string path, std::string desc, Codec codec) {
  FieldInfo info{std::move(path), codec.kind, std::move(codec.type), std::move(desc), {}};
  info.default_value = codec.get(ExperimentConfig{});
  out.push_back({std::move(info), std::move(codec.set), std::move(codec.get), std::move(codec.where)});
}

// The per-side TCP keys, registered once for `sender.` and once for `receiver.`.
void add_profile_fields(std::vector<Field>& f, const std::string& side, ProfileAt p) {
  const std::string s = side + ".";
  // AT reaches a member of this side's TcpProfile.
  auto on = [p]<class T>(T& (*at)(TcpProfile&)) -> At<T> {
    return [p, at](ExperimentConfig& c) -> T& { return at(p(c)); };
  };
  using I32 = Fn<std::int32_t>;
  using I64 = Fn<std::int64_t>;
  using B = Fn<bool>;
  using D = Fn<Nanos>;
  add(f, s + "mss", "MSS option announced; 0 = link MTU - 40",
      size(on(I32([](TcpProfile& t) -> auto& { return t.mss; }))));
  add(f, s + "ask_timestamps", "send the timestamps option in our SYN",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.ask_timestamps; }))));
  add(f, s + "accept_timestamps", "answer a SYN that asked for timestamps",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.accept_timestamps; }))));
  add(f, s + "ask_window_scale", "send a window-scale option in our SYN",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.ask_window_scale; }))));
  add(f, s + "nagle", "Nagle variant (off = TCP_NODELAY)",
      enumeration(on(Fn<sim::NagleKind>([](TcpProfile& t) -> auto& { return t.nagle; })),
                  &sim::parse_nagle_kind, &sim::to_string, join(sim::nagle_kind_names())));
  add(f, s + "fin_overrides_nagle", "a queued FIN sends a short segment past Nagle (BSD, Linux)",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.fin_overrides_nagle; }))));
  add(f, s + "send_buffer.kind", "send-buffer accounting",
      enumeration(on(Fn<sim::SendBufferKind>([](TcpProfile& t) -> auto& { return t.send_buffer.kind; })),
                  &sim::parse_send_buffer_kind, &sim::to_string, join(sim::send_buffer_kind_names())));
  add(f, s + "send_buffer.size",
      "SO_SNDBUF (afd: the per-send quota); \"unset\": never set, afd quota = the ideal send backlog",
      sndbuf_size(on(Fn<sim::SendBufferConfig>([](TcpProfile& t) -> auto& { return t.send_buffer; }))));
  add(f, s + "send_buffer.isb_initial", "afd with size \"unset\": quota before the first ideal-send-backlog estimate, and its floor",
      size(on(I64([](TcpProfile& t) -> auto& { return t.send_buffer.isb_initial; }))));
  add(f, s + "send_buffer.kb214397_literal", "afd: apply KB214397 rule 2 to nonblocking sends",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.send_buffer.kb214397_literal; }))));
  add(f, s + "ack.kind", "delayed-ACK policy",
      enumeration(on(Fn<sim::AckPolicyKind>([](TcpProfile& t) -> auto& { return t.ack.kind; })),
                  &sim::parse_ack_policy_kind, &sim::to_string, join(sim::ack_policy_kind_names())));
  add(f, s + "ack.delack_timeout", "delayed-ACK timer",
      duration(on(D([](TcpProfile& t) -> auto& { return t.ack.delack_timeout; }))));
  add(f, s + "ack.ack_on_push", "ACK at once a segment with PSH (OpenBSD net.inet.tcp.ackonpush)",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.ack.ack_on_push; }))));
  add(f, s + "ack.ack_frequency", "windows TcpAckFrequency / ns3 DelAckCount, in segments",
      integer(on(I32([](TcpProfile& t) -> auto& { return t.ack.ack_frequency; }))));
  add(f, s + "ack.jiffy", "linux: timer granularity 1/HZ (0 = exact)",
      duration(on(D([](TcpProfile& t) -> auto& { return t.ack.jiffy; }))));
  add(f, s + "ack.ack_at_read", "linux: a pair's ACK waits for the read while anything is unread (the lab's regime)",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.ack.ack_at_read; }))));
  add(f, s + "ack.tick", "bsd-tick: period of the global tick",
      duration(on(D([](TcpProfile& t) -> auto& { return t.ack.tick; }))));
  add(f, s + "ack.ato_min", "linux: TCP_ATO_MIN",
      duration(on(D([](TcpProfile& t) -> auto& { return t.ack.ato_min; }))));
  add(f, s + "ack.ato_max", "linux: TCP_DELACK_MAX",
      duration(on(D([](TcpProfile& t) -> auto& { return t.ack.ato_max; }))));
  add(f, s + "ack.max_quickacks", "linux: TCP_MAX_QUICKACKS, in ACKs",
      integer(on(I32([](TcpProfile& t) -> auto& { return t.ack.max_quickacks; }))));
  add(f, s + "receive_window", "advertised-window rule",
      enumeration(on(Fn<sim::ReceiveWindowKind>([](TcpProfile& t) -> auto& { return t.receive_window; })),
                  &sim::parse_receive_window_kind, &sim::to_string,
                  join(sim::receive_window_kind_names())));
  add(f, s + "window_update_on_read", "send a window update when a read opens the window",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.window_update_on_read; }))));
  add(f, s + "rcvbuf", "SO_RCVBUF", size(on(I64([](TcpProfile& t) -> auto& { return t.rcvbuf; }))));
  add(f, s + "round_rcvbuf_to_mss", "round the receive buffer up to whole MSS (BSD)",
      boolean(on(B([](TcpProfile& t) -> auto& { return t.round_rcvbuf_to_mss; }))));
  add(f, s + "linux_initial_rwnd", "Linux initial receive window cap; 0 = 10 MSS (Linux < 5.4)",
      size(on(I64([](TcpProfile& t) -> auto& { return t.linux_initial_rwnd; }))));
  add(f, s + "cwnd.initial_segments", "initial cwnd in segments; 0 = RFC 3390",
      integer(on(I32([](TcpProfile& t) -> auto& { return t.cwnd.initial_segments; }))));
  add(f, s + "cwnd.after_idle_segments", "cwnd after an idle RTO, in segments; 0 = no restart",
      integer(on(I32([](TcpProfile& t) -> auto& { return t.cwnd.after_idle_segments; }))));
  add(f, s + "rto_initial", "initial retransmission timeout",
      duration(on(D([](TcpProfile& t) -> auto& { return t.rto_initial; }))));
  add(f, s + "rto_min", "minimum retransmission timeout",
      duration(on(D([](TcpProfile& t) -> auto& { return t.rto_min; }))));
  add(f, s + "stack_latency", "frame arrival to the stack's reaction, drawn per frame, frames kept in order",
      delay(on(Fn<sim::Delay>([](TcpProfile& t) -> auto& { return t.stack_latency; }))));
  add(f, s + "per_segment_cost", "host time per frame sent, serial with the NIC, drawn per frame",
      delay(on(Fn<sim::Delay>([](TcpProfile& t) -> auto& { return t.per_segment_cost; }))));
}

// An old name of one term of NEW_KEY (scenario files keep loading for one release; the loader
// warns, naming NEW_KEY).
void alias(std::vector<Field>& out, std::string path, const std::string& new_key, Codec codec) {
  add(out, std::move(path), "old name of one term of " + new_key, std::move(codec));
  out.back().info.replaced_by = new_key;
}

// The old delay keys: one table of (old key -> new key, the term it sets), each row one term of a
// delay key (sim/delay.h), in the order the model drew them: the transmitter's latency +
// uniform(jitter); the reader's quantiles(read_quantiles) + read_latency + exp(read_jitter) +
// read_late_ppm ppm * (quantiles(read_late_quantiles) + read_late_latency +
// exp(read_late_jitter)); the shaper's quantiles, its trace. Read for one more release, with one
// warning (old_key_warning).
enum class OldForm : std::uint8_t { duration, list, ppm };  // the old value: duration_term, list_term, ppm_term
using DelayOf = sim::Delay& (*)(ExperimentConfig&);
constexpr DelayOf kWakeup = [](ExperimentConfig& c) -> sim::Delay& { return c.app.transmitter.wakeup; };
constexpr DelayOf kReadWakeup = [](ExperimentConfig& c) -> sim::Delay& { return c.app.receiver.read_wakeup; };
constexpr DelayOf kShaper = [](ExperimentConfig& c) -> sim::Delay& { return c.link.shaper_lateness; };
constexpr DelayOf kData = [](ExperimentConfig& c) -> sim::Delay& { return c.link.data_lateness; };
struct OldDelayKey {
  std::string_view old_key, new_key;
  DelayOf delay;  // the new key's delay
  sim::DelayKind term;
  bool in_rare;  // inside the rare-event term
  OldForm form;
};
constexpr OldDelayKey kOldDelayKeys[] = {
    {"app.transmitter.wakeup_latency", "app.transmitter.wakeup", kWakeup, sim::DelayKind::constant, false, OldForm::duration},
    {"app.transmitter.wakeup_jitter", "app.transmitter.wakeup", kWakeup, sim::DelayKind::uniform, false, OldForm::duration},
    {"app.receiver.read_latency", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::constant, false, OldForm::duration},
    {"app.receiver.read_jitter", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::exponential, false, OldForm::duration},
    {"app.receiver.read_quantiles", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::quantiles, false, OldForm::list},
    {"app.receiver.read_late_ppm", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::rare, true, OldForm::ppm},
    {"app.receiver.read_late_latency", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::constant, true, OldForm::duration},
    {"app.receiver.read_late_jitter", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::exponential, true, OldForm::duration},
    {"app.receiver.read_late_quantiles", "app.receiver.read_wakeup", kReadWakeup, sim::DelayKind::quantiles, true, OldForm::list},
    {"link.shaper_wakeup_quantiles", "link.shaper_lateness", kShaper, sim::DelayKind::quantiles, false, OldForm::list},
    {"link.shaper_wakeup_trace", "link.data_lateness", kData, sim::DelayKind::trace, false, OldForm::list},
};

std::vector<Field> build_aliases() {
  std::vector<Field> f;
  for (const OldDelayKey& k : kOldDelayKeys) {
    const At<sim::Delay> at(k.delay);
    Codec codec = k.form == OldForm::ppm        ? ppm_term(at)
                  : k.form == OldForm::duration ? duration_term(at, k.term, k.in_rare)
                                                : list_term(at, k.term, k.in_rare);
    alias(f, std::string(k.old_key), std::string(k.new_key), std::move(codec));
  }
  return f;
}

std::vector<Field> build_fields() {
  std::vector<Field> f;
  using C = ExperimentConfig;
  add(f, "link.rate", "link rate (each direction)", rate([](C& c) -> auto& { return c.link.rate_bps; }));
  add(f, "link.prop_delay", "one-way propagation delay (the RTT adds both directions)",
      duration([](C& c) -> auto& { return c.link.prop_delay; }));
  add(f, "link.mtu", "IP MTU", size<std::int32_t>([](C& c) -> auto& { return c.link.mtu; }));
  add(f, "link.framing_overhead", "bytes per frame beyond the IP packet",
      size<std::int32_t>([](C& c) -> auto& { return c.link.framing_overhead; }));
  add(f, "link.min_frame", "minimum frame (padded)",
      size<std::int32_t>([](C& c) -> auto& { return c.link.min_frame; }));
  add(f, "link.frame_gap", "framing bytes outside the minimum frame",
      size<std::int32_t>([](C& c) -> auto& { return c.link.frame_gap; }));
  add(f, "link.burst", "token-bucket burst in bytes (tbf); 0 = a wire",
      size<std::int64_t>([](C& c) -> auto& { return c.link.burst; }));
  add(f, "link.shaper_lateness", "how late a frame that waits for token-bucket credit leaves after its credit suffices",
      delay([](C& c) -> auto& { return c.link.shaper_lateness; }));
  add(f, "link.data_lateness",
      "how much later each data frame reaches the receiver than the token bucket lets it go, frames kept in order "
      "(a capture's trace(...))",
      delay([](C& c) -> auto& { return c.link.data_lateness; }));
  add(f, "link.queue_limit_packets", "drop-tail queue per direction, in packets",
      integer<std::int32_t>([](C& c) -> auto& { return c.link.queue_limit_packets; }));
  add_profile_fields(f, "sender", [](C& c) -> TcpProfile& { return c.sender; });
  add_profile_fields(f, "receiver", [](C& c) -> TcpProfile& { return c.receiver; });

  const std::string t = "app.transmitter.";
  add(f, t + "writes", "ttcp -n: number of writes",
      integer<std::int64_t>([](C& c) -> auto& { return c.app.transmitter.writes; }));
  add(f, t + "duration", "ttcp -t --time: stop starting writes after this long (0 = all writes)",
      duration([](C& c) -> auto& { return c.app.transmitter.duration; }));
  add(f, t + "write_len", "ttcp -l: bytes per write",
      size<std::int64_t>([](C& c) -> auto& { return c.app.transmitter.write_len; }));
  add(f, t + "nonblocking", "nonblocking sends (Cygwin)",
      boolean([](C& c) -> auto& { return c.app.transmitter.nonblocking; }));
  add(f, t + "chunking", "chunk policy (core::ChunkPolicy)",
      enumeration<core::PolicyKind>([](C& c) -> auto& { return c.app.transmitter.chunking; },
                                    &core::parse_policy_kind, &core::to_string,
                                    join(core::policy_names())));
  add(f, t + "chunk_mss_guess", "MSS the chunker assumes; 0 = MTU - 40",
      size<std::int32_t>([](C& c) -> auto& { return c.app.transmitter.chunk_mss_guess; }));
  add(f, t + "allow_raise_sndbuf",
      "let the robust policy raise SO_SNDBUF for sends >= SO_SNDBUF (KB823764)",
      boolean([](C& c) -> auto& { return c.app.transmitter.allow_raise_sndbuf; }));
  add(f, t + "wakeup", "FD_WRITE to the retried send (the thread's wake-up)",
      delay([](C& c) -> auto& { return c.app.transmitter.wakeup; }));
  add(f, t + "send_cost", "CPU time of one send call, drawn per send",
      delay([](C& c) -> auto& { return c.app.transmitter.send_cost; }));
  add(f, t + "close_when_done", "close (FIN) after the last write",
      boolean([](C& c) -> auto& { return c.app.transmitter.close_when_done; }));
  const std::string r = "app.receiver.";
  add(f, r + "read_len", "bytes per read",
      size<std::int64_t>([](C& c) -> auto& { return c.app.receiver.read_len; }));
  add(f, r + "read_wakeup", "data arriving to the blocked reader running (the scheduler's wake-up)",
      delay([](C& c) -> auto& { return c.app.receiver.read_wakeup; }));
  add(f, r + "read_cost", "CPU time of one read call, drawn per read",
      delay([](C& c) -> auto& { return c.app.receiver.read_cost; }));
  const std::string s = "app.scp.";
  add(f, s + "enabled", "scp-like pipeline instead of plain ttcp",
      boolean([](C& c) -> auto& { return c.app.scp.enabled; }));
  add(f, s + "teardown", "select() pipe-thread teardown",
      enumeration<sim::SelectTeardown>([](C& c) -> auto& { return c.app.scp.teardown; },
                                       &sim::parse_select_teardown, &sim::to_string,
                                       join(sim::select_teardown_names())));
  add(f, s + "sleep_quantum", "how long each of thread_pipe's Sleep() calls lasts, drawn per sleep",
      delay([](C& c) -> auto& { return c.app.scp.sleep_quantum; }));
  add(f, s + "event_wakeup", "SetEvent to thread exit, drawn per teardown",
      delay([](C& c) -> auto& { return c.app.scp.event_wakeup; }));
  add(f, s + "sender_cpu_ps_per_byte", "sender CPU picoseconds per byte",
      integer<std::int64_t>([](C& c) -> auto& { return c.app.scp.sender_cpu_ps_per_byte; }));
  add(f, s + "sender_output_buffer", "bytes the sender may encrypt ahead of the socket (ssh's output buffer; 0: serially)",
      size<std::int64_t>([](C& c) -> auto& { return c.app.scp.sender_output_buffer; }));
  add(f, s + "receiver_cpu_ps_per_byte", "receiver CPU picoseconds per byte",
      integer<std::int64_t>([](C& c) -> auto& { return c.app.scp.receiver_cpu_ps_per_byte; }));
  add(f, "initiator", "which side opens the connection",
      enumeration<sim::Initiator>([](C& c) -> auto& { return c.initiator; }, &sim::parse_initiator,
                                  &sim::to_string, join(sim::initiator_names())));
  add(f, "seed", "the run's RNG seed",
      Codec{FieldKind::integer, "integer",
            [](C& c, const Value& v) -> std::optional<std::string> {
              const auto* i = std::get_if<std::int64_t>(&v);
              if (i == nullptr || *i < 0) return "expected a non-negative integer";
              c.seed = static_cast<std::uint64_t>(*i);
              return std::nullopt;
            },
            [](const C& c) { return std::to_string(c.seed); },
            [](const C& c) { return Member{&c.seed, typeid(c.seed)}; }});
  add(f, "time_limit", "stop the run past this simulated time",
      duration([](C& c) -> auto& { return c.time_limit; }));
  add(f, "stall_threshold", "waits longer than this count as stalls; shorter ones are reported apart",
      duration_as<core::StallThreshold>([](C& c) -> auto& { return c.stall_threshold; }));
  return f;
}

const std::vector<Field>& table() {
  static const std::vector<Field> kTable = build_fields();
  return kTable;
}

const std::vector<Field>& aliases() {
  static const std::vector<Field> kAliases = build_aliases();
  return kAliases;
}

const std::vector<FieldInfo>& infos() {
  static const std::vector<FieldInfo> kInfos = [] {
    std::vector<FieldInfo> out;
    for (const Field& f : table()) out.push_back(f.info);
    return out;
  }();
  return kInfos;
}

const Field* find(std::string_view path) {
  for (const auto* t : {&table(), &aliases()})
    for (const Field& f : *t)
      if (f.info.path == path) return &f;
  return nullptr;
}

}  // namespace

std::span<const FieldInfo> fields() { return infos(); }

const FieldInfo* find_field(std::string_view path) {
  const Field* f = find(path);
  return f != nullptr ? &f->info : nullptr;
}

std::span<const FieldInfo> profile_keys() {
  static const std::vector<FieldInfo> kKeys = [] {
    std::string tcp, link;
    for (const auto& p : tcp_profiles()) tcp += (tcp.empty() ? "" : ", ") + std::string(p.name);
    for (const auto& l : link_presets()) link += (link.empty() ? "" : ", ") + std::string(l.name);
    const auto key = [](std::string path, const std::string& names, std::string desc) {
      return FieldInfo{std::move(path), FieldKind::enumeration, "one of: " + names, std::move(desc), {}};
    };
    return std::vector<FieldInfo>{
        key("sender.profile", tcp, "TCP profile applied before the sender.* keys (--list-profiles)"),
        key("receiver.profile", tcp, "TCP profile applied before the receiver.* keys (--list-profiles)"),
        key("link.preset", link, "link preset applied before the link.* keys (--list-profiles)")};
  }();
  return kKeys;
}

std::string_view grammar(FieldKind kind) {
  switch (kind) {
    case FieldKind::integer: return "an integer";
    case FieldKind::size: return core::kSizeGrammar;
    case FieldKind::boolean: return "true or false";
    case FieldKind::duration: return core::kDurationGrammar;
    case FieldKind::rate: return core::kRateGrammar;
    case FieldKind::enumeration: return "one of the names listed";
    case FieldKind::durations: return "comma-separated durations in one string, or none, e.g. \"220us,260us,2ms\"";
    case FieldKind::delay: return sim::kDelayGrammar;
  }
  return {};
}

std::string old_key_warning(const std::string& new_key, const std::set<std::string>& old, const std::string& value) {
  std::string names;
  for (const std::string& o : old) names += (names.empty() ? "" : ", ") + o;
  return names + (old.size() == 1 ? ": an old name" : ": old names") + "; write " + new_key + " = \"" + value +
         "\" (old names go in the next release)";
}

std::string unknown_key(std::string_view path) {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const FieldInfo& f : fields()) names.push_back(f.path);
    for (const FieldInfo& f : profile_keys()) names.push_back(f.path);
    return names;
  }();
  return std::string(path) + ": unknown key" + core::did_you_mean(path, kNames);
}

core::Result<void> set_field(ExperimentConfig& cfg, std::string_view path, const Value& value) {
  const Field* f = find(path);
  if (f == nullptr) return core::fail(unknown_key(path));
  if (auto err = f->set(cfg, value)) return core::fail(std::string(path) + ": " + *err);
  return {};
}

core::Result<std::string> get_field(const ExperimentConfig& cfg, std::string_view path) {
  const Field* f = find(path);
  if (f == nullptr) return core::fail(unknown_key(path));
  return f->get(cfg);
}

core::Result<Value> field_value(const ExperimentConfig& cfg, std::string_view path) {
  const Field* f = find(path);
  if (f == nullptr) return core::fail(unknown_key(path));
  std::string text = f->get(cfg);
  switch (f->info.kind) {
    case FieldKind::boolean: return Value(text == "true");
    case FieldKind::integer:
    case FieldKind::size: {
      // The integer the getter spelled ("8k" -> 8192); a size's "unset" stays a string.
      std::int64_t i = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
      if (ec == std::errc() && end == text.data() + text.size()) return Value(i);
      if (const auto n = core::parse_size(text);
          n && *n <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Value(static_cast<std::int64_t>(*n));
      return Value(std::move(text));
    }
    default: return Value(std::move(text));
  }
}

const FieldInfo* field_at(const ExperimentConfig& cfg, const void* member, std::type_index type) {
  for (const Field& f : table()) {
    if (!f.where) continue;
    const Member m = f.where(cfg);
    if (m.address == member && m.type == type) return &f.info;
  }
  return nullptr;
}

}  // namespace ackstall::scenario
