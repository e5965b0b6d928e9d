// ackstall ttcp: transmitter, receiver and the shared flag set (ttcp_run.h).
#include "ttcp_run.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <istream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/endpoint.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/net/receive_tuning.h"
#include "ackstall/net/tcp_socket.h"
#include "finding_json.h"

namespace ackstall::tools {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double>(t - t0).count();
}

std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Interval reports (--interval): closes intervals as time passes.
struct IntervalClock {
  double every = 0;
  Clock::time_point t0;
  double last_end = 0;
  std::uint64_t last_bytes = 0;
  std::vector<TtcpInterval> done;
  // Returns true when a new interval was closed.
  bool tick(Clock::time_point now, std::uint64_t bytes) {
    if (every <= 0) return false;
    const double t = since(t0, now);
    if (t - last_end < every) return false;
    done.push_back({last_end, t, bytes - last_bytes});
    last_end = t;
    last_bytes = bytes;
    return true;
  }
  void finish(double t, std::uint64_t bytes) {
    if (every > 0 && bytes > last_bytes && t > last_end) done.push_back({last_end, t, bytes - last_bytes});
  }
};

void print_interval(std::ostream& out, const char* who, const TtcpInterval& i) {
  const double s = i.end - i.start;
  fmt::print(out, "{}: {:7.2f}-{:<7.2f} sec {:>12} bytes {:9.3f} MB/s\n", who, i.start, i.end,
             i.bytes, s > 0 ? static_cast<double>(i.bytes) / s / 1e6 : 0.0);
}

void print_summary(std::ostream& out, const char* who, const TtcpResult& r) {
  const double kbps = r.seconds > 0 ? static_cast<double>(r.bytes) / 1024.0 / r.seconds : 0;
  fmt::print(out, "{}: {} bytes in {:.2f} real seconds = {:.2f} KB/sec +++ ({:.3f} MB/s, {:.3f} MiB/s)\n",
             who, r.bytes, r.seconds, kbps, r.mb_per_s(),
             r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / 1048576.0 : 0.0);
  fmt::print(out, "{}: {} I/O calls, msec/call = {:.2f}, calls/sec = {:.2f}\n", who, r.calls,
             r.calls ? r.seconds * 1000.0 / static_cast<double>(r.calls) : 0.0,
             r.seconds > 0 ? static_cast<double>(r.calls) / r.seconds : 0.0);
}

nlohmann::json sum_json(double seconds, std::uint64_t bytes, double start = 0) {
  return {{"start", start},
          {"end", start + seconds},
          {"seconds", seconds},
          {"bytes", bytes},
          {"bits_per_second", seconds > 0 ? static_cast<double>(bytes) * 8 / seconds : 0.0}};
}

nlohmann::json result_json(const TtcpConfig& cfg, const TtcpResult& r, const std::string& local,
                           const std::string& remote) {
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& i : r.intervals) intervals.push_back({{"sum", sum_json(i.end - i.start, i.bytes, i.start)}});
  nlohmann::json j = {
      {"start",
       {{"version", "ackstall ttcp"},
        {"connected", {{{"local", local}, {"remote", remote}}}},
        {"test_start",
         {{"protocol", "TCP"},
          {"role", cfg.transmit ? "transmitter" : "receiver"},
          {"blksize", cfg.buflen},
          {"num_buffers", cfg.nbuf_set ? nlohmann::json(cfg.nbuf) : nlohmann::json(nullptr)},
          {"duration", cfg.seconds},
          {"nodelay", cfg.nodelay},
          {"sock_bufsize", cfg.sockbuf ? nlohmann::json(*cfg.sockbuf) : nlohmann::json(nullptr)},
          {"chunk", cfg.isb ? std::string("isb") : std::string(core::to_string(cfg.chunk))},
          {"emulate_afd", cfg.afd_quota ? nlohmann::json(*cfg.afd_quota) : nlohmann::json(nullptr)},
          {"ack_mode", std::string(to_string(cfg.ack_mode))},
          {"verify", cfg.verify}}}}},
      {"intervals", intervals},
      {"end", {{cfg.transmit ? "sum_sent" : "sum_received", sum_json(r.seconds, r.bytes)},
               {"io_calls", r.calls}}}};
  if (cfg.transmit) {  // null where the OS does not report them (tcp_info_error says why)
    j["end"]["tcp_mss"] = r.mss ? nlohmann::json(*r.mss) : nlohmann::json(nullptr);
    j["end"]["timestamps"] = r.mss ? nlohmann::json(r.timestamps) : nlohmann::json(nullptr);
    if (!r.mss) j["end"]["tcp_info_error"] = r.tcp_info_error;
  }
  if (r.isb) {
    j["end"]["isb"] = to_json(*r.isb);
  }
  if (r.afd) {
    const auto& a = *r.afd;
    j["end"]["afd"] = {{"quota", *cfg.afd_quota},
                       {"sends", a.sends},
                       {"would_blocks", a.would_blocks},
                       {"waits", a.waits},
                       {"stalls", a.stalls},
                       {"stall_threshold_ms", cfg.stall_ms},
                       {"completions", a.completions},
                       {"waited_seconds", std::chrono::duration<double>(a.waited).count()},
                       {"longest_wait_ms", std::chrono::duration<double, std::milli>(a.longest_wait).count()}};
  }
  if (cfg.verify && !cfg.transmit) j["end"]["verify"] = {{"bytes_checked", r.bytes}, {"ok", true}};
  return j;
}

// Connects, retrying while refused (the receiver may still be starting) until the deadline.
net::Result<net::TcpSocket> connect_retrying(const net::Endpoint& to, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto s = net::connect_tcp(to, std::max(left, std::chrono::milliseconds(1)));
    if (s || s.error().code != ECONNREFUSED || Clock::now() >= deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int run_transmitter(const TtcpConfig& cfg, Io io, TtcpResult& res) {
  const char* who = "ttcp-t";
  if (!cfg.source_sink && !cfg.data_in) return fail(io, "ttcp-t: no input stream here: use -s");
  const net::Endpoint target{cfg.host, cfg.port};
  const std::string where = net::to_string(target);
  if (!cfg.json) {
    fmt::print(io.out, "{}: buflen={}, nbuf={}, align=16384/0, port={}  tcp  -> {}\n", who,
               cfg.buflen, cfg.nbuf, cfg.port, cfg.host);
    fmt::print(io.out, "{}: socket\n", who);
  }
  auto sock = connect_retrying(target, cfg.connect_timeout_ms);
  if (!sock) return fail(io, fmt::format("{}: connect to {}: {}", who, where, sock.error().message()));
  if (!cfg.json) fmt::print(io.out, "{}: connect\n", who);

  std::unique_ptr<net::AfdSocketOps> afd;
  net::SocketOps* ops = &net::system_socket_ops();
  if (cfg.afd_quota) {
    net::AfdOptions o;
    o.quota = *cfg.afd_quota;
    o.stall_threshold = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(cfg.stall_ms));
    auto a = net::AfdSocketOps::attach(net::system_socket_ops(), sock->native(), o);
    if (!a) return fail(io, fmt::format("{}: --emulate-afd: {}", who, a.error().message()));
    afd = std::move(*a);
    ops = afd.get();
  }
  net::ChunkedSender sender(*ops, sock->native(), {cfg.chunk, 0});
  if (cfg.nodelay) {
    if (auto r = sender.set_option(net::SocketOption::tcp_nodelay, 1); !r) {
      return fail(io, fmt::format("{}: {}", who, r.error().message()));
    }
    if (!cfg.json) fmt::print(io.out, "{}: nodelay\n", who);
  }
  // -b: SO_SNDBUF; under --emulate-afd the quota is the send buffer Winsock would have had.
  if (cfg.sockbuf && !cfg.afd_quota) {
    if (auto r = sender.set_option(net::SocketOption::send_buffer, *cfg.sockbuf); !r) {
      return fail(io, fmt::format("{}: {}", who, r.error().message()));
    }
  }
  // --chunk isb: SO_SNDBUF follows the ideal send backlog (queried at most once a second, as
  // curl does), and the seed policy re-chunks under it (ideal_send_backlog.h).
  std::optional<net::IsbTuner> isb;
  const auto update_isb = [&]() -> net::Result<void> {
    if (!isb) return {};
    auto r = isb->update();
    if (!r) return tl::unexpected(r.error());
    res.isb = *r;
    return {};
  };
  if (cfg.isb) isb.emplace(*ops, sender);
  if (auto r = update_isb(); !r) return fail(io, fmt::format("{}: --chunk isb: {}", who, r.error().message()));
  auto policy = sender.policy();
  if (!policy) return fail(io, fmt::format("{}: {}", who, policy.error().message()));
  if (!cfg.json && (cfg.verbose || cfg.chunk != core::PolicyKind::none || afd)) {
    fmt::print(io.out, "{}: chunk={} (mss {}, sndbuf {}, base chunk {}){}{}\n", who,
               cfg.isb ? "isb" : core::to_string(policy->kind()), policy->params().mss,
               policy->params().sndbuf, policy->base_chunk(),
               afd ? fmt::format(", emulated AFD quota {}", afd->quota().quota()) : std::string(),
               !res.isb ? std::string()
               : res.isb->provenance == net::Provenance::measured
                   ? fmt::format(", ideal send backlog {} ({})", res.isb->value, res.isb->source)
                   : fmt::format(", no ideal send backlog: {}", res.isb->source));
  }

  std::vector<std::byte> buf(static_cast<std::size_t>(cfg.buflen));
  if (cfg.source_sink && !cfg.verify) fill_pattern(buf, 0);  // ttcp -s: the same pattern each time
  // The next application send: a pattern buffer (-s), or up to buflen bytes of input (ttcp's
  // read(0, buf, buflen) loop; 0 at end of input).
  const auto next_buffer = [&](std::uint64_t offset) -> std::size_t {
    if (cfg.source_sink) {
      if (cfg.verify) fill_pattern(buf, offset);
      return buf.size();
    }
    cfg.data_in->read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    return static_cast<std::size_t>(cfg.data_in->gcount());
  };
  const bool by_time = cfg.seconds > 0;
  const auto t0 = Clock::now();
  const auto stop_at = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  IntervalClock iv{cfg.interval, t0, 0, 0, {}};
  std::uint64_t sent = 0;
  for (std::int64_t n = 0;; ++n) {
    // -n bounds a -s run (default 2048) and, only when given, a run from input.
    if ((!by_time || cfg.nbuf_set) && (cfg.source_sink || cfg.nbuf_set) && n >= cfg.nbuf) break;
    if (by_time && Clock::now() >= stop_at) break;
    if (auto r = update_isb(); !r) {
      return fail(io, fmt::format("{}: --chunk isb: {}", who, r.error().message()));
    }
    const std::size_t len = next_buffer(sent);
    if (len == 0) {
      if (cfg.data_in->bad()) {
        return fail(io, fmt::format("{}: reading the input failed after {} bytes", who, sent));
      }
      break;  // end of input
    }
    std::size_t off = 0;
    while (off < len) {
      const core::ByteSlice slice{buf.data() + off, len - off};
      auto r = sender.send(std::span(&slice, 1));
      if (!r) {
        return fail(io, fmt::format("{}: connection to {} lost after {} bytes: {}", who, where,
                                    sent, r.error().message()));
      }
      off += r->bytes;
      sent += r->bytes;
    }
    ++res.calls;
    if (iv.tick(Clock::now(), sent) && !cfg.json) print_interval(io.out, who, iv.done.back());
  }
  if (afd) {
    if (auto r = afd->wait_all_acked(60000); !r) {
      return fail(io, fmt::format("{}: connection to {} lost after {} bytes: {}", who, where, sent,
                                  r.error().message()));
    }
  }
  // Half-close and wait for the receiver's close: the clock stops when it has read everything.
  if (auto r = net::shutdown_send(*sock); !r) {
    return fail(io, fmt::format("{}: {}", who, r.error().message()));
  }
  for (;;) {
    auto ready = net::wait_readable(*sock, 60000);
    if (!ready || !*ready) {
      return fail(io, fmt::format("{}: {} did not close the connection within 60 s", who, where));
    }
    std::byte sink[512];
    auto r = net::recv_some(*sock, sink);
    if (!r) {
      return fail(io, fmt::format("{}: connection to {} lost after {} bytes: {}", who, where, sent,
                                  r.error().message()));
    }
    if (r->eof) break;
  }
  const auto t1 = Clock::now();
  res.bytes = sent;
  res.seconds = since(t0, t1);
  iv.finish(res.seconds, sent);
  res.intervals = iv.done;
  if (afd) res.afd = afd->stats();
  net::Syscalls calls(net::system_socket_ops());
  if (auto info = calls.tcp_info(sock->native())) {
    res.mss = info->snd_mss;
    res.timestamps = info->timestamps;
  } else {
    res.tcp_info_error = info.error().message();
  }
  if (cfg.json) {
    io.out << result_json(cfg, res, net::local_address(*sock).value_or("?"), where).dump(2) << '\n';
    return kExitOk;
  }
  if (res.afd) {
    const auto& a = *res.afd;
    fmt::print(io.out,
               "{}: emulate-afd quota={}: {} sends, waited {:.3f} s for completions in {} waits, "
               "{} stalls > {} ms (longest {:.1f} ms)\n",
               who, *cfg.afd_quota, a.sends, std::chrono::duration<double>(a.waited).count(),
               a.waits, a.stalls, cfg.stall_ms,
               std::chrono::duration<double, std::milli>(a.longest_wait).count());
  }
  if (cfg.verbose && res.mss) {
    fmt::print(io.out, "{}: mss {}, timestamps {}\n", who, *res.mss, res.timestamps ? "on" : "off");
  } else if (cfg.verbose) {
    fmt::print(io.out, "{}: mss and timestamps unknown ({})\n", who, res.tcp_info_error);
  }
  print_summary(io.out, who, res);
  return kExitOk;
}

int run_receiver(const TtcpConfig& cfg, Io io, const std::function<void(std::uint16_t)>& on_listening,
                 TtcpResult& res) {
  const char* who = "ttcp-r";
  if (!cfg.source_sink && !cfg.data_out) return fail(io, "ttcp-r: no output stream here: use -s");
  auto listener = net::listen_tcp({cfg.bind, cfg.port}, 1);
  if (!listener) {
    return fail(io, fmt::format("{}: listen on {}: {}", who, net::to_string({cfg.bind, cfg.port}),
                                listener.error().message()));
  }
  if (cfg.sockbuf) {
    if (auto r = net::set_receive_buffer(listener->socket, *cfg.sockbuf); !r) {
      return fail(io, fmt::format("{}: {}", who, r.error().message()));
    }
  }
  if (!cfg.json) {
    fmt::print(io.out, "{}: buflen={}, nbuf={}, align=16384/0, port={}  tcp\n", who, cfg.buflen,
               cfg.nbuf, listener->port);
    fmt::print(io.out, "{}: socket\n", who);
    io.out.flush();  // a script waiting for the port (-p 0) reads it now, not at exit
  }
  if (on_listening) on_listening(listener->port);
  if (auto ready = net::wait_readable(listener->socket, cfg.accept_timeout_ms); !ready || !*ready) {
    return fail(io, fmt::format("{}: no transmitter connected within {} ms", who, cfg.accept_timeout_ms));
  }
  auto conn = net::accept_tcp(listener->socket);
  if (!conn) return fail(io, fmt::format("{}: accept: {}", who, conn.error().message()));
  listener->socket.close();
  const std::string peer = net::peer_address(*conn).value_or("?");
  if (!cfg.json) fmt::print(io.out, "{}: accept from {}\n", who, peer);
  const auto apply_ack_mode = [&]() -> net::Result<void> {
    if (cfg.ack_mode == AckMode::classic) return net::set_quickack(*conn, false);
    if (cfg.ack_mode == AckMode::quickack) return net::set_quickack(*conn, true);
    return {};
  };
  if (auto r = apply_ack_mode(); !r) return fail(io, fmt::format("{}: {}", who, r.error().message()));

  std::vector<std::byte> buf(static_cast<std::size_t>(cfg.buflen));
  std::vector<std::byte> want(cfg.verify ? buf.size() : 0);
  const auto t0 = Clock::now();
  IntervalClock iv{cfg.interval, t0, 0, 0, {}};
  std::uint64_t got = 0;
  for (;;) {
    auto r = net::recv_some(*conn, buf);
    if (!r) {
      return fail(io, fmt::format("{}: connection from {} lost after {} bytes: {}", who, peer, got,
                                  r.error().message()));
    }
    if (r->eof) break;
    if (cfg.verify) {
      fill_pattern(std::span(want).first(r->bytes), got);
      if (std::memcmp(want.data(), buf.data(), r->bytes) != 0) {
        std::size_t i = 0;
        while (want[i] == buf[i]) ++i;
        return fail(io, fmt::format("{}: --verify: byte {} is 0x{:02x}, expected 0x{:02x}", who,
                                    got + i, static_cast<unsigned>(buf[i]),
                                    static_cast<unsigned>(want[i])));
      }
    }
    if (!cfg.source_sink && !cfg.data_out->write(reinterpret_cast<const char*>(buf.data()),
                                                 static_cast<std::streamsize>(r->bytes))) {
      return fail(io, fmt::format("{}: writing the output failed after {} bytes", who, got));
    }
    got += r->bytes;
    ++res.calls;
    if (auto a = apply_ack_mode(); !a) return fail(io, fmt::format("{}: {}", who, a.error().message()));
    if (iv.tick(Clock::now(), got) && !cfg.json) print_interval(io.out, who, iv.done.back());
  }
  if (!cfg.source_sink && !cfg.data_out->flush()) {
    return fail(io, fmt::format("{}: writing the output failed after {} bytes", who, got));
  }
  const auto t1 = Clock::now();
  conn->close();
  res.bytes = got;
  res.seconds = since(t0, t1);
  iv.finish(res.seconds, got);
  res.intervals = iv.done;
  const std::uint64_t expected = static_cast<std::uint64_t>(cfg.nbuf) * static_cast<std::uint64_t>(cfg.buflen);
  if (cfg.nbuf_set && got != expected) {
    return fail(io, fmt::format("{}: {} {}: {} of {} bytes (-n {} -l {})", who, peer,
                                got < expected ? "closed early" : "sent more than expected", got,
                                expected, cfg.nbuf, cfg.buflen));
  }
  if (cfg.json) {
    io.out << result_json(cfg, res, net::to_string({cfg.bind, listener->port}), peer).dump(2) << '\n';
    return kExitOk;
  }
  if (cfg.verify) fmt::print(io.out, "{}: --verify: {} bytes match the pattern\n", who, got);
  print_summary(io.out, who, res);
  return kExitOk;
}

}  // namespace

std::string_view to_string(AckMode m) noexcept {
  switch (m) {
    case AckMode::normal: return "default";
    case AckMode::classic: return "classic";
    case AckMode::quickack: return "quickack";
  }
  return "?";
}

std::optional<AckMode> parse_ack_mode(std::string_view s) noexcept {
  if (s == "default") return AckMode::normal;
  if (s == "classic") return AckMode::classic;
  if (s == "quickack") return AckMode::quickack;
  return std::nullopt;
}

void fill_pattern(std::span<std::byte> out, std::uint64_t offset) noexcept {
  std::size_t i = 0;
  while (i < out.size()) {
    const std::uint64_t pos = offset + i;
    const std::uint64_t word = splitmix64(pos / 8);
    std::size_t b = pos % 8;
    for (; b < 8 && i < out.size(); ++b, ++i) out[i] = static_cast<std::byte>(word >> (8 * b));
  }
}

int run_ttcp(const TtcpConfig& cfg, Io io, const std::function<void(std::uint16_t)>& on_listening,
             TtcpResult* result) {
  TtcpResult local;
  TtcpResult& res = result ? *result : local;
  // Without -s the data owns stdout: reports go to stderr, as ttcp prints them.
  const Io report = cfg.source_sink ? io : Io{io.err, io.err, io.in};
  return cfg.transmit ? run_transmitter(cfg, report, res) : run_receiver(cfg, report, on_listening, res);
}

void TtcpCli::add_to(CLI::App& cmd) {
  cmd.add_flag("-t", cfg.transmit, "transmit (connect to HOST)");
  cmd.add_flag("-r", receive, "receive (listen on -p)");
  cmd.add_flag("-s", source_sink,
               "source/sink a pattern (else -t sends stdin and -r writes to stdout, as in ttcp)");
  cmd.add_option("-n", cfg.nbuf, "number of buffers to transmit (default 2048)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->each([this](const std::string&) { cfg.nbuf_set = true; });
  cmd.add_option("-l", cfg.buflen, "length of each buffer = one application send (default 8192)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{64} << 20));
  cmd.add_option("-b", cfg.sockbuf, "SO_SNDBUF (-t; the quota with --emulate-afd) / SO_RCVBUF (-r)")
      ->check(CLI::Range(1, 1 << 30));
  cmd.add_option("-p", cfg.port, "port (default 5001)")->check(CLI::Range(0, 65535));
  cmd.add_flag("-D", cfg.nodelay, "TCP_NODELAY on the transmitter");
  cmd.add_flag("-v", cfg.verbose, "more detail");
  cmd.add_option("host", cfg.host, "-t: the receiver's HOST");
  cmd.add_option("--chunk", chunk,
                 "split each send: none (default), seed, cygwin, or isb (seed under SO_SNDBUF = "
                 "Windows' ideal send backlog; elsewhere plain seed)")
      ->check(CLI::IsMember(std::vector<std::string>{"none", "seed", "cygwin", "isb"}));
  cmd.add_option("--emulate-afd", afd_flag,
                 "charge each send whole against a Winsock quota (default 8192, or -b); write "
                 "--emulate-afd=QUOTA")
      ->expected(0, 1)
      ->default_str("0")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
  cmd.add_option("--time", cfg.seconds, "transmit for this many seconds (instead of -n)")
      ->check(CLI::Range(0.001, 86400.0));
  cmd.add_option("--interval", cfg.interval, "report every this many seconds")
      ->check(CLI::Range(0.01, 86400.0));
  cmd.add_flag("--verify", cfg.verify, "send / check the deterministic pattern byte for byte");
  cmd.add_flag("--json", cfg.json, "print JSON (fields after iperf3 -J)");
  cmd.add_option("--ack-mode", ack_mode,
                 "-r: default, classic (TCP_QUICKACK=0 after every read) or quickack")
      ->check(CLI::IsMember(std::vector<std::string>{"default", "classic", "quickack"}));
  cmd.add_option("--stall-ms", cfg.stall_ms, "a completion wait longer than this is a stall (default 20)")
      ->check(CLI::Range(0.0, 60000.0));
  cmd.add_option("--bind", cfg.bind, "-r: numeric address to listen on (default 0.0.0.0)");
  cmd.add_option("--connect-timeout-ms", cfg.connect_timeout_ms,
                 "-t: keep retrying a refused connect this long (default 5000)")
      ->check(CLI::Range(1, 600000));
  cmd.add_option("--accept-timeout-ms", cfg.accept_timeout_ms,
                 "-r: give up if no transmitter connects in time (default: wait forever)")
      ->check(CLI::Range(1, 86400000));
}

std::string TtcpCli::finish(bool host_required) {
  if (cfg.transmit == receive) return "ttcp: give exactly one of -t (transmit) and -r (receive)";
  cfg.source_sink = source_sink;
  if (!source_sink && cfg.verify) {
    return "ttcp: --verify checks the -s pattern; it cannot check stdin/stdout data (add -s)";
  }
  const net::NetPolicy policy = *net::parse_net_policy(chunk);
  cfg.chunk = policy.core;
  cfg.isb = policy.isb;
  cfg.ack_mode = *parse_ack_mode(ack_mode);
  if (cfg.transmit) {
    if (host_required && cfg.host.empty()) return "ttcp -t: missing HOST";
    if (cfg.port == 0) return "ttcp -t: -p must be 1..65535";
    if (cfg.ack_mode != AckMode::normal) return "ttcp: --ack-mode is a receiver (-r) option";
    if (afd_flag) {
#if !defined(__linux__)
      return "ttcp: --emulate-afd needs Linux (SO_TIMESTAMPING TX_ACK completions); on Windows "
             "Winsock's own quota applies: set it with -b";
#endif
      if (*afd_flag > 0 && cfg.sockbuf && *cfg.sockbuf != *afd_flag) {
        return "ttcp: -b and --emulate-afd=QUOTA both set the quota; give one";
      }
      cfg.afd_quota = *afd_flag > 0 ? *afd_flag : cfg.sockbuf.value_or(8192);
    }
  } else {
    if (!cfg.host.empty()) return "ttcp -r: unexpected HOST '" + cfg.host + "' (the receiver listens)";
    if (afd_flag) return "ttcp: --emulate-afd is a transmitter (-t) option";
    if (chunk != "none") return "ttcp: --chunk is a transmitter (-t) option";
    if (cfg.nodelay) return "ttcp: -D is a transmitter (-t) option";
    if (cfg.seconds > 0) return "ttcp: --time is a transmitter (-t) option";
    if (net::parse_endpoint(cfg.bind + ":1").has_value() == false) return "ttcp -r: bad --bind '" + cfg.bind + "'";
  }
  return {};
}

}  // namespace ackstall::tools
