// ackstall ttcp's flags (shared by `ackstall ttcp` and `lab run -- ...`): the transfer's
// ttcp::Config plus how to print it.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/ttcp/config.h"
#include "sndbuf_rule_option.h"

namespace ackstall::tools {

// One end of a transfer as the command line runs it.
struct TtcpConfig : ttcp::Config {
  bool verbose = false;  // -v
  bool json = false;     // --json
};

// Registers ttcp's flags on `cmd`. finish() must be called after parsing: it checks the
// combinations and fills `cfg` (a usage error otherwise, one line).
struct TtcpCli {
  TtcpConfig cfg;
  bool receive = false;
  bool source_sink = false;
  std::string afd_text;                   // --emulate-afd: "" absent, "default", or =QUOTA
  std::vector<std::string> positionals;   // HOST; or QUOTA HOST after "--emulate-afd" (finish())
  std::optional<std::int64_t> sockbuf;    // -b, checked against kMaxSocketBuffer
  std::string chunk = "none";
  SndbufRuleFlags sndbuf_rule;  // --sndbuf-rule, --raise-sndbuf
  std::string ack_mode = "default";
  void add_to(CLI::App& cmd);
  core::Result<void> finish(bool host_required);
};

// The ACK mode names, for CLI choices ("default", "classic", "quickack").
std::vector<std::string> ack_mode_names();

}  // namespace ackstall::tools
