#include "ackstall/lab/state_file.h"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

namespace ackstall::lab {
namespace {

constexpr std::string_view kKeys[] = {"rate",   "timestamps",    "ack_mode",   "queue_bytes",
                                      "rtt_ns", "receiver_acks", "drop_tails", "drop_seed"};
// Keys a state file must have; later ones are optional (their LabConfig defaults when absent: a
// lab written by an earlier release).
constexpr std::size_t kRequiredKeys = 4;

// A non-negative integer, or what is wrong with it.
core::Result<std::int64_t> non_negative(std::string_view value) {
  std::int64_t n = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < 0) {
    return core::fail("expected a non-negative integer, got '" + std::string(value) + "'");
  }
  return n;
}

// Sets the field `key` of `cfg` from `value`, or says what is wrong with the value.
core::Result<void> set_field(LabConfig& cfg, std::string_view key, std::string_view value) {
  const std::string v(value);
  if (key == "rate") {
    if (auto r = parse_rate(value); !r) return tl::unexpected(r.error());
    cfg.rate = v;
  } else if (key == "timestamps") {
    if (value != "0" && value != "1") return core::fail("expected 0 or 1, got '" + v + "'");
    cfg.timestamps = value == "1";
  } else if (key == "ack_mode") {
    const auto m = ttcp::parse_ack_mode(value);
    if (!m) return core::fail("expected default, classic or quickack, got '" + v + "'");
    cfg.ack_mode = *m;
  } else if (key == "receiver_acks") {
    const auto a = parse_receiver_acks(value);
    if (!a) return core::fail("expected kernel or windows, got '" + v + "'");
    cfg.receiver_acks = *a;
  } else if (key == "drop_tails") {
    const auto p = parse_drop_probability(value);
    if (!p) return tl::unexpected(p.error());
    cfg.drop_tails = *p;
  } else if (key == "drop_seed") {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
      return core::fail("expected a non-negative integer, got '" + v + "'");
    }
    cfg.drop_seed = n;
  } else {
    const auto n = non_negative(value);
    if (!n) return tl::unexpected(n.error());
    (key == "queue_bytes" ? cfg.queue_bytes : cfg.rtt_ns) = *n;
  }
  return {};
}

}  // namespace

std::string format_state(const LabConfig& cfg) {
  std::ostringstream s;
  s << "rate=" << cfg.rate << "\ntimestamps=" << (cfg.timestamps ? "1" : "0")
    << "\nack_mode=" << ttcp::to_string(cfg.ack_mode) << "\nqueue_bytes=" << cfg.queue_bytes << "\nrtt_ns=" << cfg.rtt_ns
    << "\nreceiver_acks=" << to_string(cfg.receiver_acks);
  // The shortest text that reads back as the same double (std::to_chars, [charconv.to.chars]), in
  // fixed notation: for a probability in [0, 1] at most 326 characters (the smallest double,
  // 5e-324, is "0.", 323 zeros and a 5).
  char p[400];
  const auto r = std::to_chars(p, p + sizeof p, cfg.drop_tails, std::chars_format::fixed);
  const std::string_view text = r.ec == std::errc{} ? std::string_view(p, static_cast<std::size_t>(r.ptr - p)) : "0";
  s << "\ndrop_tails=" << text << "\ndrop_seed=" << cfg.drop_seed << '\n';
  return s.str();
}

core::Result<LabConfig> parse_state(std::string_view text, std::string_view name) {
  const std::string file(name);
  if (text.empty()) return core::fail(file + ": empty file");
  if (text.back() != '\n') return core::fail(file + ": truncated: the last line has no newline");
  LabConfig cfg;
  bool seen[std::size(kKeys)] = {};
  int number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++number;
    const std::string where = file + ": line " + std::to_string(number) + ": ";
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return core::fail(where + "expected KEY=VALUE, got '" + std::string(line) + "'");
    const std::string_view key = line.substr(0, eq);
    std::size_t k = 0;
    while (k < std::size(kKeys) && kKeys[k] != key) ++k;
    if (k == std::size(kKeys)) return core::fail(where + "unknown key '" + std::string(key) + "'");
    if (seen[k]) return core::fail(where + std::string(key) + " given twice");
    seen[k] = true;
    if (auto r = set_field(cfg, key, line.substr(eq + 1)); !r) {
      return core::fail(where + std::string(key) + ": " + r.error().message());
    }
  }
  for (std::size_t k = 0; k < kRequiredKeys; ++k) {
    if (!seen[k]) return core::fail(file + ": no " + std::string(kKeys[k]) + " line (truncated?)");
  }
  return cfg;
}

core::Result<void> write_state_file(const std::string& path, const LabConfig& cfg) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return core::fail("cannot write " + path + ": " + core::errno_text(errno));
  out << format_state(cfg);
  out.flush();
  if (!out) return core::fail("cannot write " + path + ": " + core::errno_text(errno));
  return {};
}

core::Result<LabConfig> read_state_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::fail("cannot read " + path + ": " + core::errno_text(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return core::fail("cannot read " + path + ": " + core::errno_text(errno));
  return parse_state(text.str(), path);
}

}  // namespace ackstall::lab
