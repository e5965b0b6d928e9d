// ackstall lab up|down|run|matrix: the two-namespace real-kernel lab (ackstall/lab/netns.h).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "choice_option.h"
#include "ackstall/core/units.h"
#include "app.h"
#include "ackstall/lab/matrix.h"
#include "ackstall/lab/process.h"
#include "lab_transfer_pair.h"
#include "ackstall/lab/netns.h"
#include "ttcp_cli.h"
#include "unsigned_option.h"

namespace ackstall::tools {
namespace {

struct UpOptions {
  std::string rate = "100mbit";
  std::string timestamps = "on";
  std::string ack_mode = "default";
  std::int64_t queue_bytes = 0;
  int mtu = 1500;
  std::string rtt{};  // empty: no middle host
  std::string receiver_acks = "kernel";
  std::string drop_tails{};  // empty: none
  std::uint64_t drop_seed = 1;
  // Assumes validate() passed.
  lab::LabConfig config() const {
    return {rate, timestamps == "on", *ttcp::parse_ack_mode(ack_mode), queue_bytes, mtu,
            rtt.empty() ? 0 : *core::parse_duration_ns(rtt), *lab::parse_receiver_acks(receiver_acks),
            drop_tails.empty() ? 0.0 : *lab::parse_drop_probability(drop_tails), drop_seed};
  }
  // The flags' values that CLI11 does not check itself, or what is wrong with one.
  core::Result<void> validate(std::string_view cmd) const {
    if (!lab::parse_rate(rate)) return core::fail(std::string(cmd) + ": bad --rate '" + rate + "' (e.g. 100mbit)");
    // The route's quickack makes the kernel ACK every segment; a receiver ACK mode would do nothing.
    if (receiver_acks == "windows" && ack_mode != "default") {
      return core::fail(std::string(cmd) + ": --ack-mode " + ack_mode +
                        " has no effect with --receiver-acks windows (the kernel ACKs every segment and the "
                        "middle host times them)");
    }
    if (!drop_tails.empty()) {
      if (auto p = lab::parse_drop_probability(drop_tails); !p) {
        return core::fail(std::string(cmd) + ": bad --drop-tails: " + p.error().message());
      }
    }
    if (rtt.empty()) return {};
    const auto ns = core::parse_duration_ns(rtt);
    if (!ns) return core::fail(std::string(cmd) + ": bad --rtt '" + rtt + "': " + ns.error().message());
    if (*ns <= 0 || *ns > 10'000'000'000) {
      return core::fail(std::string(cmd) + ": --rtt '" + rtt + "' is outside (0, 10 s]");
    }
    return {};
  }
};

void add_up_options(CLI::App& cmd, UpOptions& o) {
  cmd.add_option("--rate", o.rate, "tc rate of the data direction (default 100mbit: 100BASE-T)");
  cmd.add_option("--timestamps", o.timestamps, "TCP timestamps: on (default, MSS 1448) or off")
      ->check(one_of(std::vector<std::string>{"on", "off"}));
  cmd.add_option("--ack-mode", o.ack_mode,
                 "receiver ACK mode for lab run: default, classic (TCP_QUICKACK=0 after every "
                 "read) or quickack")
      ->check(one_of(ack_mode_names()));
  cmd.add_option("--queue-bytes", o.queue_bytes,
                 "shaper queue limit in bytes (a tiny queue forces drops; default: 20 ms of queue)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  cmd.add_option("--rtt", o.rtt,
                 "round-trip time the path adds, e.g. 30ms: a third host (ackstall-m) carries a "
                 "delay line (half each way) and the shaper, whose drops are then losses on the path");
  cmd.add_option("--receiver-acks", o.receiver_acks,
                 "who times the receiver's ACKs: kernel (default: Linux, as --ack-mode sets it) or "
                 "windows (a Windows-like receiver as seen from the wire: the kernel ACKs every "
                 "segment and the middle host, ackstall-m, forwards an ACK every 2nd segment "
                 "(TcpAckFrequency 2), else 200 ms after the first unACKed one (TcpDelAckTicks 2); "
                 "brings up ackstall-m even without --rtt)")
      ->check(one_of(std::vector<std::string>{"kernel", "windows"}));
  cmd.add_option("--drop-tails", o.drop_tails,
                 "probability (0..1) that the delay line drops a write's last segment (PSH) of new data "
                 "from a to b, each once: tail loss, recovered by a tail-loss probe or a timeout, not "
                 "fast retransmit; brings up ackstall-m even without --rtt");
  cmd.add_option("--drop-seed", o.drop_seed, "seed of --drop-tails' draws (default 1): the same seed, the same draws")
      ->check(not_negative("a seed", "SEED"));
  cmd.add_option("--mtu", o.mtu, "MTU of both veth ends (default 1500; 9000: jumbo frames)")->check(CLI::Range(576, 65535));
}

int run_up(const UpOptions& o, Io io) {
  if (auto ok = o.validate("lab up"); !ok) return fail(io, ok.error(), kExitUsage);
  if (auto root = lab::check_root(); !root) return fail(io, root.error());
  const auto cfg = o.config();
  lab::InterruptGuard interrupt("lab up");  // Ctrl-C half-way: the lab is removed
  if (auto r = lab::lab_up(cfg, [&](const std::string& m) { io.out << m << '\n'; }); !r) {
    return fail(io, r.error());
  }
  const bool windows = cfg.receiver_acks == lab::ReceiverAcks::windows;
  const std::string path =
      cfg.middle() ? fmt::format(" via {} (delay line {} round trip{}{}, {} shaped to {})", lab::kNsM,
                                 cfg.rtt_ns > 0 ? core::format_duration_ns(cfg.rtt_ns) : std::string("0 ms"),
                                 windows ? ", receiver's ACKs thinned to Windows' rule: every 2nd segment, else 200 ms" : "",
                                 cfg.drop_tails > 0 ? fmt::format(", dropping writes' last segments with probability "
                                                                  "{} (seed {})", cfg.drop_tails, cfg.drop_seed)
                                                    : std::string(),
                                 lab::kVethMB, cfg.rate)
                   : fmt::format(", {} shaped to {}", lab::kVethA, cfg.rate);
  fmt::print(io.out, "lab up: {} ({} {}) -> {} ({} {}){} with Ethernet framing, timestamps {}, receiver ack mode {}\n",
             lab::kNsA, lab::kVethA, lab::kAddrA, lab::kNsB, lab::kVethB, lab::kAddrB, path,
             cfg.timestamps ? "on" : "off",
             windows ? "quickack (route)" : std::string(ttcp::to_string(cfg.ack_mode)));
  return kExitOk;
}

int run_down(Io io) {
  if (auto root = lab::check_root(); !root) return fail(io, root.error());
  const bool was = lab::lab_present();
  if (auto r = lab::lab_down(); !r) return fail(io, r.error(), kExitFailure, "lab down: ");
  io.out << (was ? "lab down: removed the lab (its namespaces and any delay line)\n" : "lab down: no lab was up\n");
  return kExitOk;
}

// Parses ttcp transmitter flags given after "lab run --" (a usage error otherwise).
core::Result<TtcpConfig> parse_tx(const std::vector<std::string>& args) {
  CLI::App app{"ttcp flags", "ttcp"};
  TtcpCli cli;
  cli.add_to(app);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return core::fail(std::string("lab run -- ...: ") + e.what());
  }
  if (cli.receive) return core::fail("lab run: give transmitter flags; the receiver runs in ackstall-b by itself");
  if (cli.ack_mode != "default") return core::fail("lab run: give --ack-mode before '--' (it is the receiver's)");
  cli.cfg.transmit = true;
  cli.source_sink = true;
  if (auto ok = cli.finish(false); !ok) return tl::unexpected(ok.error());
  if (!cli.cfg.host.empty()) {
    return core::fail("lab run: drop HOST '" + cli.cfg.host + "': the transmitter connects to 10.77.0.2");
  }
  return cli.cfg;
}

// The pair's receiver (ttcp::receiver_for), printing as the transmitter does (--json).
TtcpConfig receiver_for(const TtcpConfig& tx, ttcp::AckMode mode) {
  TtcpConfig rx;
  static_cast<ttcp::Config&>(rx) = ttcp::receiver_for(tx, mode);
  rx.json = tx.json;
  return rx;
}

struct RunOptions {
  std::string ack_mode;
  bool ipv6 = false;
  std::string realtime = "on";
  std::vector<std::string> ttcp;
};

int run_run(const RunOptions& o, Io io) {
  const auto parsed = parse_tx(o.ttcp);
  if (!parsed) return fail(io, parsed.error(), kExitUsage);
  const TtcpConfig& tx = *parsed;
  if (auto root = lab::check_root(); !root) return fail(io, root.error());
  const auto state = lab::read_state();
  if (!state) return fail(io, state.error(), kExitFailure, "lab run: ");
  if (!*state) return fail(io, "lab run: no lab is up (run `ackstall lab up` first)");
  const ttcp::AckMode mode = o.ack_mode.empty() ? (*state)->ack_mode : *ttcp::parse_ack_mode(o.ack_mode);
  lab::InterruptGuard interrupt("lab run");  // Ctrl-C: the lab is removed, exit 130 (143)
  const auto out = run_pair(tx, receiver_for(tx, mode), o.realtime == "on", o.ipv6);
  if (tx.json) {
    nlohmann::json j;
    j["transmitter"] = out.tx_code == 0 ? nlohmann::json::parse(out.tx_out) : nlohmann::json(nullptr);
    j["receiver"] = out.rx_code == 0 ? nlohmann::json::parse(out.rx_out) : nlohmann::json(nullptr);
    io.out << j.dump(2) << '\n';
  } else {
    io.out << out.tx_out << out.rx_out;
  }
  io.err << out.tx_err << out.rx_err;
  return std::max(out.tx_code, out.rx_code);
}

// ---- matrix ----

struct MatrixOptions {
  UpOptions up{.ack_mode = "classic"};
  std::vector<std::int64_t> lengths = {2920, 7300, 8192, 15928, 16384};
  std::vector<std::string> cases = {"unpatched", "chunked", "nodelay"};
  int runs = 3;
  double seconds = 1.0;
  std::int64_t quota = 8192;
  std::string realtime = "on";
  std::string json_path, csv_path;
  std::string capture_dir;  // one pcapng per cell, taken on the receiver's veth (dumpcap)
};

int run_matrix(const MatrixOptions& o, Io io) {
  if (auto ok = o.up.validate("lab matrix"); !ok) return fail(io, ok.error(), kExitUsage);
  const auto rate = lab::parse_rate(o.up.rate);
  if (auto root = lab::check_root(); !root) return fail(io, root.error());
  auto cfg = o.up.config();
  lab::InterruptGuard interrupt("lab matrix");  // Ctrl-C: the lab is removed, exit 130 (143)
  lab::LabGuard guard;  // the matrix's own lab goes away on every path
  if (auto r = lab::lab_up(cfg, [&](const std::string& m) { io.out << m << '\n'; }); !r) {
    return fail(io, r.error());
  }
  const double line = lab::line_rate_bytes_per_s(*rate, cfg.timestamps) / 1e6;
  fmt::print(io.out,
             "lab matrix: receiver {}, emulated AFD quota {}, timestamps {}, {} (line rate {:.2f} MB/s), "
             "median of {} run{} of {:g} s, {} threads\n",
             ttcp::to_string(cfg.ack_mode), o.quota, cfg.timestamps ? "on" : "off", cfg.rate, line, o.runs,
             o.runs == 1 ? "" : "s", o.seconds, o.realtime == "on" ? "SCHED_FIFO" : "ordinary");
  fmt::print(io.out, "{:>6}  {:<10} {:>8} {:>8} {:>8} {:>7} {:>9} {:>10}\n", "len", "case", "MB/s",
             "min", "max", "line%", "stalls/s", "wait ms/s");
  std::vector<lab::MatrixCell> rows;
  std::uint16_t port = 5101;
  for (std::int64_t len : o.lengths) {
    for (const std::string& kase : o.cases) {
      lab::MatrixCell row{len, kase, {}, {}, {}, {}, {}};
      std::optional<lab::BackgroundCommand> capture;
      if (!o.capture_dir.empty()) {
        row.capture = (std::filesystem::path(o.capture_dir) / fmt::format("{}-{}.pcapng", len, kase)).string();
        auto c = lab::start_cell_capture(row.capture);
        if (!c) return fail(io, "lab matrix: --capture-dir: " + c.error().message());
        capture.emplace(std::move(*c));
      }
      for (int i = 0; i < o.runs; ++i) {
        TtcpConfig tx;
        tx.buflen = len;
        tx.seconds = o.seconds;
        tx.afd_quota = o.quota;
        tx.chunk = kase == "chunked"  ? core::PolicyKind::seed
                   : kase == "robust" ? core::PolicyKind::robust
                                      : core::PolicyKind::none;
        tx.nodelay = kase == "nodelay";
        tx.port = port++;
        if (port > 5900) port = 5101;
        const auto out = run_pair(tx, receiver_for(tx, cfg.ack_mode), o.realtime == "on");
        if (out.tx_code != 0 || out.rx_code != 0) {
          return fail(io, fmt::format("lab matrix: -l {} {}: {}", len, kase,
                                         (out.tx_err + out.rx_err).substr(0, (out.tx_err + out.rx_err).find('\n'))));
        }
        const double s = out.tx.seconds;
        row.mbps.push_back(out.tx.mb_per_s());
        row.stalls.push_back(out.tx.afd->stalls);
        row.stalls_per_s.push_back(static_cast<double>(out.tx.afd->stalls) / s);
        row.waited_ms_per_s.push_back(std::chrono::duration<double, std::milli>(out.tx.afd->waited).count() / s);
      }
      if (capture) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the last frames reach the file
        if (auto r = capture->stop(); !r) return fail(io, "lab matrix: --capture-dir: " + r.error().message());
      }
      const double m = lab::median(row.mbps);
      fmt::print(io.out, "{:>6}  {:<10} {:8.3f} {:8.3f} {:8.3f} {:6.1f}% {:9.1f} {:10.1f}\n", len, kase, m,
                 lab::min_of(row.mbps), lab::max_of(row.mbps), 100 * lab::fraction_of(m, line),
                 lab::median(row.stalls_per_s), lab::median(row.waited_ms_per_s));
      io.out.flush();
      rows.push_back(std::move(row));
    }
  }
  const lab::MatrixSetup setup{std::string(ttcp::to_string(cfg.ack_mode)), cfg.rate, o.quota, cfg.timestamps,
                                o.realtime == "on", o.runs, o.seconds, line};
  if (!o.json_path.empty()) {
    if (auto w = lab::write_matrix_json(o.json_path, setup, rows); !w) return fail(io, w.error());
  }
  if (!o.csv_path.empty()) {
    if (auto w = lab::write_matrix_csv(o.csv_path, setup, rows); !w) return fail(io, w.error());
  }
  if (auto r = lab::lab_down(); !r) return fail(io, r.error(), kExitFailure, "lab matrix: ");
  return kExitOk;
}

}  // namespace

void add_lab_command(CLI::App& parent, Action& selected) {
  CLI::App* cmd = parent.add_subcommand(
      "lab", "Two network namespaces (ackstall-a -> ackstall-b) over veth shaped to 100BASE-T "
             "goodput; needs root");
  cmd->require_subcommand(1);

  auto up = std::make_shared<UpOptions>();
  CLI::App* c_up = cmd->add_subcommand("up", "create the lab (removes a stale one first)");
  add_up_options(*c_up, *up);
  c_up->callback([up, &selected] { selected = [up](Io io) { return run_up(*up, io); }; });

  CLI::App* c_down = cmd->add_subcommand("down", "remove the lab");
  c_down->callback([&selected] { selected = [](Io io) { return run_down(io); }; });

  auto run = std::make_shared<RunOptions>();
  CLI::App* c_run = cmd->add_subcommand(
      "run", "one ttcp transfer ackstall-a -> ackstall-b: lab run [--ack-mode M] -- -l 15928 -n 500 "
             "--emulate-afd (Ctrl-C or SIGTERM removes the lab, exit 130/143)");
  c_run->add_option("--ack-mode", run->ack_mode, "receiver ACK mode (default: the one given to lab up)")
      ->check(one_of(ack_mode_names()));
  const auto realtime_help =
      "on (default): the transfer threads run SCHED_FIFO, so the emulated quota's completions "
      "and the receiver's reads are not delayed by other work on the machine; off: ordinary threads";
  c_run->add_option("--realtime", run->realtime, realtime_help)
      ->check(one_of(std::vector<std::string>{"on", "off"}));
  c_run->add_flag("--ipv6", run->ipv6, "over the lab's IPv6 addresses (fd77::1 -> fd77::2)");
  c_run->add_option("ttcp", run->ttcp, "ttcp transmitter flags, after --");
  c_run->callback([run, &selected] { selected = [run](Io io) { return run_run(*run, io); }; });

  auto mx = std::make_shared<MatrixOptions>();
  CLI::App* c_mx = cmd->add_subcommand(
      "matrix", "unpatched / chunked (seed) / robust / NODELAY over write sizes, emulated AFD quota, median "
                "of N runs; brings up its own lab and removes it (also on Ctrl-C or SIGTERM: exit "
                "130/143)");
  add_up_options(*c_mx, mx->up);
  c_mx->add_option("--lengths", mx->lengths, "write sizes (default 2920,7300,8192,15928,16384)")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{16} << 20));
  c_mx->add_option("--cases", mx->cases, "cases: unpatched, chunked (seed), robust, nodelay (default unpatched,chunked,nodelay)")
      ->delimiter(',')
      ->check(one_of(std::vector<std::string>{"unpatched", "chunked", "robust", "nodelay"}));
  c_mx->add_option("--runs", mx->runs, "runs per cell, the median is reported (default 3)")
      ->check(CLI::Range(1, 101));
  c_mx->add_option("--time", mx->seconds, "seconds per run (default 1)")->check(CLI::Range(0.05, 600.0));
  c_mx->add_option("--quota", mx->quota, "emulated Winsock quota (default 8192)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  c_mx->add_option("--realtime", mx->realtime, realtime_help)
      ->check(one_of(std::vector<std::string>{"on", "off"}));
  c_mx->add_option("--json", mx->json_path, "also write the matrix as JSON to FILE");
  c_mx->add_option("--csv", mx->csv_path, "also write the matrix as CSV to FILE");
  c_mx->add_option("--capture-dir", mx->capture_dir,
                   "capture each cell on the receiver's veth (dumpcap, 128 bytes a frame) into DIR/LEN-CASE.pcapng")
      ->check(CLI::ExistingDirectory);
  c_mx->callback([mx, &selected] { selected = [mx](Io io) { return run_matrix(*mx, io); }; });
}

}  // namespace ackstall::tools
