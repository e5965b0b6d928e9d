// ackstall ttcp's front end: runs one end through the ttcp library (ackstall/ttcp/transfer.h)
// and prints what ttcp prints (or --json), as `ackstall ttcp`, `lab run` and `lab matrix` show it.
//
// Without -s the data owns stdout: the reports go to io.err, as ttcp prints them to stderr.
// Errors: one line on io.err ("ackstall: ttcp-t: ..."), exit code kExitFailure.
#pragma once

#include <cstdint>
#include <functional>

#include "ackstall/ttcp/result.h"
#include "app.h"
#include "ttcp_cli.h"

namespace ackstall::tools {

// Runs one side. `on_listening(port)` is called by -r once it listens (before accept); `result`
// receives the measurements of a successful run. Returns the exit code.
int run_ttcp(const TtcpConfig& cfg, Io io, const std::function<void(std::uint16_t)>& on_listening = {},
             ttcp::TransferResult* result = nullptr);

}  // namespace ackstall::tools
