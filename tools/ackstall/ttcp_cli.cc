// ackstall ttcp's flags (ttcp_cli.h).
#include "ttcp_cli.h"

#include "choice_option.h"

#include <vector>

#include "ackstall/net/endpoint.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "size_option.h"
#include "stall_threshold_option.h"

namespace ackstall::tools {

std::vector<std::string> ack_mode_names() {
  std::vector<std::string> names;
  for (const ttcp::AckMode m : ttcp::kAckModes) names.emplace_back(ttcp::to_string(m));
  return names;
}

void TtcpCli::add_to(CLI::App& cmd) {
  cmd.add_flag("-t", cfg.transmit, "transmit (connect to HOST)");
  cmd.add_flag("-r", receive, "receive (listen on -p)");
  cmd.add_flag("-s", source_sink,
               "source/sink a pattern (else -t sends stdin and -r writes to stdout, as in ttcp)");
  cmd.add_option("-n", cfg.nbuf, "number of buffers to transmit (default 2048)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->each([this](const std::string&) { cfg.nbuf_set = true; });
  add_size_option(cmd, "-l", cfg.buflen, "length of each buffer = one application send (default 8192)", 1,
                  std::uint64_t{64} << 20);
  add_size_option(cmd, "-b", sockbuf, "SO_SNDBUF (-t; the quota with --emulate-afd) / SO_RCVBUF (-r)", 1,
                  kMaxSocketBuffer);
  cmd.add_option("-p", cfg.port, "port (default 5001)")->check(CLI::Range(0, 65535));
  cmd.add_flag("-D", cfg.nodelay, "TCP_NODELAY on the transmitter");
  cmd.add_flag("-v", cfg.verbose, "more detail");
  cmd.add_option("host", positionals, "-t: the receiver's HOST");
  cmd.add_option("--chunk", chunk,
                 "split each send: none (default), seed, cygwin, cygwin-patch (contrib/cygwin/'s cut), robust "
                 "(docs/STACKS.md §8), auto (a "
                 "plain send where the kernel charges no per-send quota, robust on Winsock or with "
                 "--emulate-afd), or isb (seed with --sndbuf-rule ideal-backlog)")
      ->check(one_of(net::net_policy_names()));
  add_sndbuf_rule_options(cmd, sndbuf_rule,
                          "-t, robust/auto may raise it above a send it cannot split without a stall, "
                          "KB823764's second workaround; the quota under --emulate-afd");
  // A flag whose value comes after '=' (it never takes a HOST that follows it); a size right
  // after it ("--emulate-afd 8k HOST") is its quota too: finish() takes it from the positionals.
  cmd.add_flag("--emulate-afd{default}", afd_text,
               "charge each send whole against a Winsock quota (default 8192, or -b); a quota is "
               "written --emulate-afd=QUOTA or --emulate-afd QUOTA (bytes, or k/K/KiB, M, G: 8k)");
  cmd.add_option("--time", cfg.seconds, "transmit for this many seconds (instead of -n)")
      ->check(CLI::Range(0.001, 86400.0));
  cmd.add_option("--interval", cfg.interval, "report every this many seconds")
      ->check(CLI::Range(0.01, 86400.0));
  cmd.add_flag("--verify", cfg.verify, "send / check the deterministic pattern byte for byte");
  cmd.add_flag("--json", cfg.json, "print JSON (fields after iperf3 -J)");
  cmd.add_option("--ack-mode", ack_mode,
                 "-r: default, classic (TCP_QUICKACK=0 after every read) or quickack")
      ->check(one_of(ack_mode_names()));
  add_stall_threshold_option(
      cmd, [this](core::StallThreshold t) { cfg.stall_threshold = t; },
      "a send or read (or an emulated quota's completion wait) longer than this is a stall", "--stall-ms",
      std::int64_t{60} * 1'000'000'000);
  cmd.add_option("--bind", cfg.bind,
                 "-r: address to listen on: an IPv4/IPv6 literal ([::1] or ::1) or a name (default: "
                 "every address, IPv6 and IPv4)");
  cmd.add_flag("--forever", cfg.forever, "-r: serve one transfer after another (a report each) until interrupted");
  cmd.add_option("--connect-timeout-ms", cfg.connect_timeout_ms,
                 "-t: keep retrying a refused connect this long (default 5000)")
      ->check(CLI::Range(1, 600000));
  cmd.add_option("--accept-timeout-ms", cfg.accept_timeout_ms,
                 "-r: give up if no transmitter connects in time (default: wait forever)")
      ->check(CLI::Range(1, 86400000));
}

core::Result<void> TtcpCli::finish(bool host_required) {
  if (sockbuf) cfg.sockbuf = static_cast<int>(*sockbuf);
  // "--emulate-afd 8k HOST": a size first after the bare flag is its quota, not a HOST.
  bool quota_from_positional = false;
  if (afd_text == "default" && !positionals.empty() && core::parse_size(positionals.front())) {
    afd_text = positionals.front();
    positionals.erase(positionals.begin());
    quota_from_positional = true;
  }
  if (positionals.size() > 1) return core::fail("ttcp: unexpected argument '" + positionals[1] + "' (one HOST)");
  cfg.host = positionals.empty() ? std::string() : positionals.front();
  if (cfg.transmit == receive) return core::fail("ttcp: give exactly one of -t (transmit) and -r (receive)");
  cfg.source_sink = source_sink;
  if (!source_sink && cfg.verify) {
    return core::fail("ttcp: --verify checks the -s pattern; it cannot check stdin/stdout data (add -s)");
  }
  const net::NetPolicy policy = *net::parse_net_policy(chunk);
  cfg.chunk = policy.core;
  const auto rule = resolve_sndbuf_rule(sndbuf_rule, policy, "--chunk " + chunk, "ttcp");
  if (!rule) return tl::unexpected(rule.error());
  cfg.sndbuf_rule = *rule;
  cfg.ack_mode = *ttcp::parse_ack_mode(ack_mode);
  if (cfg.transmit) {
    if (host_required && cfg.host.empty()) {
      return core::fail("ttcp -t: missing HOST" +
                        (quota_from_positional ? " (" + afd_text + " is --emulate-afd's quota)" : std::string()));
    }
    if (cfg.port == 0) return core::fail("ttcp -t: -p must be 1..65535");
    if (cfg.ack_mode != ttcp::AckMode::normal) return core::fail("ttcp: --ack-mode is a receiver (-r) option");
    std::optional<std::int64_t> afd_flag;  // 0: the default quota
    if (afd_text == "default") {
      afd_flag = 0;
    } else if (!afd_text.empty()) {
      const auto q = core::parse_size(afd_text);
      if (!q || *q < 1 || *q > static_cast<std::uint64_t>(kMaxSocketBuffer)) {
        return core::fail("ttcp: --emulate-afd=" + afd_text + ": expected a quota of 1.." +
                          std::to_string(kMaxSocketBuffer) + " bytes (or k/K/KiB, M, G: 8k)");
      }
      afd_flag = static_cast<std::int64_t>(*q);
    }
    if (afd_flag) {
#if !defined(__linux__)
      return core::fail("ttcp: --emulate-afd needs Linux (SO_TIMESTAMPING TX_ACK completions); on "
                        "Windows Winsock's own quota applies: set it with -b");
#endif
      if (*afd_flag > 0 && cfg.sockbuf && *cfg.sockbuf != *afd_flag) {
        return core::fail("ttcp: -b and --emulate-afd=QUOTA both set the quota; give one");
      }
      cfg.afd_quota = *afd_flag > 0 ? *afd_flag : cfg.sockbuf.value_or(8192);
    }
  } else {
    if (!cfg.host.empty()) return core::fail("ttcp -r: unexpected HOST '" + cfg.host + "' (the receiver listens)");
    if (!afd_text.empty()) return core::fail("ttcp: --emulate-afd is a transmitter (-t) option");
    if (chunk != "none") return core::fail("ttcp: --chunk is a transmitter (-t) option");
    if (cfg.nodelay) return core::fail("ttcp: -D is a transmitter (-t) option");
    if (cfg.seconds > 0) return core::fail("ttcp: --time is a transmitter (-t) option");
    if (cfg.bind.size() >= 2 && cfg.bind.front() == '[' && cfg.bind.back() == ']') {
      cfg.bind = cfg.bind.substr(1, cfg.bind.size() - 2);  // [::1] as in a URL
    }
    if (cfg.bind.find_first_of("[]/ ") != std::string::npos) {
      return core::fail("ttcp -r: bad --bind '" + cfg.bind + "': expected an address or a host name");
    }
  }
  if (cfg.forever && cfg.transmit) return core::fail("ttcp: --forever is a receiver (-r) option");
  return {};
}

}  // namespace ackstall::tools
