// ackstall probe HOST[:PORT]: connect, report what the OS knows about the path (with provenance:
// measured or which fallback), and the chunk plan the policy would use for one send of --len;
// with --ack-test, how the receiver ACKs (ack_test.h). Without --ack-test no data is sent, and a
// ttcp receiver ignores the empty connection.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "choice_option.h"
#include "ackstall/core/chunk_policy.h"
#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/endpoint.h"
#include "ackstall/net/ideal_send_backlog.h"
#include "ackstall/net/path_probe.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/ttcp/ack_test.h"
#include "app.h"
#include "finding_json.h"
#include "size_option.h"

namespace ackstall::tools {
namespace {

// probe --json's "ack_test".
nlohmann::json ack_test_json(const ttcp::AckTestResult& r) {
  nlohmann::json writes = nlohmann::json::array();
  for (std::size_t k = 0; k < r.ms.size(); ++k) {
    writes.push_back({{"segments", k + 1}, {"ack_ms", r.ms[k]}, {"median_ms", r.median_ms[k]}});
  }
  return {{"segment_bytes", r.mss}, {"writes", writes}, {"delayed_ack_ms", r.delayed_ms},
          {"verdict", r.verdict}, {"timer_fits", r.fits}};
}

struct ProbeOptions {
  std::string target;
  std::optional<std::uint16_t> port;  // -p, as ttcp takes it
  std::uint64_t len = 65536;
  std::string policy = "seed";  // net::parse_net_policy: none, seed, cygwin, isb
  std::optional<int> sndbuf;
  int timeout_ms = 5000;
  bool json = false;
  bool ack_test = false;
  int rounds = 5;
};

// The port when the target names none: ttcp's.
constexpr std::uint16_t kDefaultPort = 5001;

nlohmann::json optional_json(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

void print_finding(std::ostream& out, std::string_view name, const std::string& value,
                   net::Provenance p, const std::string& source) {
  fmt::print(out, "{:<11} {:>8}  {:<8}  {}\n", name, value, net::to_string(p), source);
}

int run_probe(const ProbeOptions& opt, Io io) {
  net::Endpoint target = *net::parse_endpoint_or_host(opt.target, kDefaultPort);  // validated at parse time
  if (opt.port) {
    // -p PORT beside a HOST:PORT that names another port: which one was meant is unknowable.
    if (net::parse_endpoint(opt.target) && target.port != *opt.port) {
      return fail(io, fmt::format("probe: {} names port {}, -p says {}: give one", opt.target, target.port, *opt.port),
                  kExitUsage);
    }
    target.port = *opt.port;
  }
  const std::string where = net::to_string(target);
  auto sock = net::connect_tcp(target, std::chrono::milliseconds(opt.timeout_ms));
  if (!sock) return fail(io, "probe " + where + ": " + sock.error().message());

  const net::NetPolicy net_policy = *net::parse_net_policy(opt.policy);  // checked at parse time
  net::ChunkedSender sender(net::system_socket_ops(), sock->native(), net::sender_options(net_policy));
  if (opt.sndbuf) {
    if (auto r = sender.set_option(net::SocketOption::send_buffer, *opt.sndbuf); !r) {
      return fail(io, "probe " + where + ": " + r.error().message());
    }
  }
  // Windows' ideal send backlog (ideal_send_backlog.h): reported always; where the sender follows
  // it (--policy isb; auto on Windows) SO_SNDBUF is set to it, as before the sender's first send.
  net::Finding<std::int64_t> isb;
  if (sender.follows_isb()) {
    if (auto r = sender.update_isb(); !r)
      return fail(io, "probe " + where + ": ideal send backlog: " + r.error().message());
    isb = *sender.isb_reading();
  } else {
    isb = net::query_ideal_send_backlog(net::system_socket_ops(), sock->native());
  }
  net::Syscalls calls(net::system_socket_ops());
  const net::PathReport report = net::probe_path(calls, sock->native());
  const auto policy = sender.policy();
  if (!policy) return fail(io, "probe " + where + ": " + policy.error().message());
  const auto chunks = policy->plan(static_cast<std::size_t>(opt.len));
  const std::string local = net::local_address(*sock).value_or("?");
  const std::string peer = net::peer_address(*sock).value_or(where);
  const auto notice = core::policy_notice(policy->kind(), policy->params(), static_cast<std::size_t>(opt.len));
  std::optional<ttcp::AckTestResult> acks;
  if (opt.ack_test) {
    auto r = ttcp::run_ack_test(net::system_socket_ops(), sock->native(), report.mss.value, opt.rounds);
    if (!r) return fail(io, "probe " + where + ": " + r.error().message());
    acks = std::move(*r);
  }

  if (opt.json) {
    nlohmann::json j = {
        {"target", where},
        {"peer", peer},
        {"local", local},
        {"interface", report.interface},
        {"stream", report.stream},
        {"mss", to_json(report.mss)},
        {"timestamps", to_json(report.timestamps)},
        {"mtu", to_json(report.mtu)},
        {"sndbuf", to_json(report.sndbuf)},
        {"ideal_send_backlog", to_json(isb)},
        {"raw",
         {{"tcp_info_snd_mss", optional_json(report.tcp_info_snd_mss)},
          {"tcp_maxseg", optional_json(report.tcp_maxseg)},
          {"sndbuf_reported", optional_json(report.sndbuf_reported)}}},
        {"plan",
         {{"policy", std::string(net::to_string(net_policy))},
          {"mss", policy->params().mss},
          {"sndbuf", policy->params().sndbuf},
          {"len", opt.len},
          {"base_chunk", policy->base_chunk()},
          {"chunks", chunks},
          {"notice", notice ? nlohmann::json(*notice) : nlohmann::json(nullptr)}}}};
    if (acks) j["ack_test"] = ack_test_json(*acks);
    io.out << j.dump(2) << '\n';
    return kExitOk;
  }
  fmt::print(io.out, "probe {} from {}{}\n", peer, local,
             report.interface.empty() ? std::string() : " via " + report.interface);
  std::string mss_source = report.mss.source;
  if (report.tcp_maxseg) mss_source += fmt::format(" (TCP_MAXSEG {})", *report.tcp_maxseg);
  print_finding(io.out, "mss", std::to_string(report.mss.value), report.mss.provenance,
                mss_source);
  print_finding(io.out, "timestamps", report.timestamps.value ? "on" : "off",
                report.timestamps.provenance, report.timestamps.source);
  print_finding(io.out, "mtu", std::to_string(report.mtu.value), report.mtu.provenance,
                report.mtu.source);
  print_finding(io.out, "sndbuf", std::to_string(report.sndbuf.value), report.sndbuf.provenance,
                report.sndbuf.source);
  print_finding(io.out, "isb", isb.provenance == net::Provenance::measured ? std::to_string(isb.value) : "-",
                isb.provenance, isb.source);
  fmt::print(io.out, "plan        policy {}, mss {}, sndbuf {}, base chunk {}, len {}: {} chunk{}\n",
             net::to_string(net_policy), policy->params().mss, policy->params().sndbuf,
             policy->base_chunk(), opt.len, chunks.size(), chunks.size() == 1 ? "" : "s");
  for (std::size_t c : chunks) fmt::print(io.out, "  {}\n", c);
  if (notice) fmt::print(io.out, "note        {}\n", *notice);
  if (acks) {
    for (std::size_t k = 0; k < acks->median_ms.size(); ++k) {
      std::string each;
      for (double v : acks->ms[k]) each += fmt::format(" {:.2f}", v);
      fmt::print(io.out, "ack {} seg   {:>8.2f} ms median  (each:{})\n", k + 1, acks->median_ms[k], each);
    }
    fmt::print(io.out, "acks        {}\n", acks->verdict);
    for (const auto& f : acks->fits) fmt::print(io.out, "            fits {}\n", f);
  }
  return kExitOk;
}

}  // namespace

void add_probe_command(CLI::App& parent, Action& selected) {
  auto opt = std::make_shared<ProbeOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "probe", "Connect to HOST:PORT, report MSS, timestamps, MTU and SO_SNDBUF (measured or "
               "fallback) and the chunk plan for one send");
  const CLI::Validator endpoint(
      [](std::string& text) -> std::string {
        auto e = net::parse_endpoint_or_host(text, kDefaultPort);
        return e ? std::string() : "bad HOST[:PORT] '" + text + "': " + e.error().message();
      },
      "HOST[:PORT]");
  cmd->add_option("target", opt->target, "where to connect: HOST[:PORT] or [IPv6][:PORT] (port 5001, ttcp's, by default)")
      ->required()
      ->check(endpoint);
  cmd->add_option("-p,--port", opt->port, "the port, as ttcp's -p (the same as HOST:PORT; default 5001)")
      ->check(CLI::Range(1, 65535));
  add_size_option(*cmd, "--len", opt->len, "bytes in the application's send to plan (default 65536)", 0,
                  std::uint64_t{1} << 30);
  cmd->add_option("--policy", opt->policy,
                  "chunking policy: seed (default), cygwin, none, or isb (seed under SO_SNDBUF = "
                  "Windows' ideal send backlog)")
      ->check(one_of(net::net_policy_names()));
  add_size_option(*cmd, "--sndbuf", opt->sndbuf, "set SO_SNDBUF on the connection first", 1, kMaxSocketBuffer);
  cmd->add_option("--timeout-ms", opt->timeout_ms, "connect timeout (default 5000)")
      ->check(CLI::Range(1, 600000));
  cmd->add_flag("--json", opt->json, "print JSON");
  cmd->add_flag("--ack-test", opt->ack_test,
                "measure the receiver's ACKs: writes of 1, 2 and 3 segments, the time until each is ACKed "
                "(sends data: a ttcp receiver reports a short transfer)");
  cmd->add_option("--rounds", opt->rounds, "--ack-test: writes of each size (default 5)")->check(CLI::Range(1, 100));
  cmd->callback([opt, &selected] {
    selected = [opt](Io io) { return run_probe(*opt, io); };
  });
}

}  // namespace ackstall::tools
