// ackstall ttcp --json: the report of one end, fields after iperf3 -J (tests and
// bench/ttcp_vs_iperf3.sh read them).
#pragma once

#include <nlohmann/json.hpp>

#include "ackstall/ttcp/result.h"
#include "ttcp_cli.h"

namespace ackstall::tools {

nlohmann::json ttcp_result_json(const TtcpConfig& cfg, const ttcp::TransferResult& r);

}  // namespace ackstall::tools
