#include "ttcp_json.h"

#include <chrono>
#include <string>

#include "ackstall/net/ideal_send_backlog.h"
#include "finding_json.h"
#include "interrupt.h"

namespace ackstall::tools {
namespace {

nlohmann::json sum_json(double seconds, std::uint64_t bytes, double start = 0) {
  return {{"start", start},
          {"end", start + seconds},
          {"seconds", seconds},
          {"bytes", bytes},
          {"bits_per_second", seconds > 0 ? static_cast<double>(bytes) * 8 / seconds : 0.0}};
}

}  // namespace

nlohmann::json ttcp_result_json(const TtcpConfig& cfg, const ttcp::TransferResult& r) {
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& i : r.intervals) {
    auto sum = sum_json(i.end - i.start, i.bytes, i.start);
    sum["stalls"] = i.stalls;
    intervals.push_back({{"sum", sum}});
  }
  nlohmann::json j = {
      {"start",
       {{"version", "ackstall ttcp"},
        {"connected", {{{"local", r.local}, {"remote", r.remote}}}},
        {"test_start",
         {{"protocol", "TCP"},
          {"role", cfg.transmit ? "transmitter" : "receiver"},
          {"blksize", cfg.buflen},
          {"num_buffers", cfg.nbuf_set ? nlohmann::json(cfg.nbuf) : nlohmann::json(nullptr)},
          {"duration", cfg.seconds},
          {"nodelay", cfg.nodelay},
          {"sock_bufsize", cfg.sockbuf ? nlohmann::json(*cfg.sockbuf) : nlohmann::json(nullptr)},
          {"chunk", std::string(net::to_string(net::NetPolicy{cfg.chunk, cfg.sndbuf_rule}))},
          {"sndbuf_rule", std::string(core::to_string(cfg.sndbuf_rule))},
          {"emulate_afd", cfg.afd_quota ? nlohmann::json(*cfg.afd_quota) : nlohmann::json(nullptr)},
          {"ack_mode", std::string(ttcp::to_string(cfg.ack_mode))},
          {"verify", cfg.verify}}}}},
      {"intervals", intervals},
      {"end", {{cfg.transmit ? "sum_sent" : "sum_received", sum_json(r.seconds, r.bytes)},
               {"io_calls", r.calls},
               {"stalls", {{"count", r.stalls},
                           {"threshold_ms", cfg.stall_ms},
                           {"longest_call_ms", r.longest_call_ms}}},
               {"interrupted", r.interrupted ? nlohmann::json(signal_name(r.interrupted)) : nlohmann::json(nullptr)}}}};
  if (r.lost) j["error"] = r.lost->message();  // iperf3 -J's key: the transfer ended early
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
                       {"final_quota", a.final_quota},
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

}  // namespace ackstall::tools
