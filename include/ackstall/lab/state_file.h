// ackstall lab: the state file that `lab up` writes and `lab run` reads (/run/ackstall-lab.conf).
//
// Format: one KEY=VALUE per line, each line ending in a newline, all four keys exactly once:
//   rate=100mbit        (lab::parse_rate)
//   timestamps=1        (0 or 1)
//   ack_mode=classic    (default, classic or quickack)
//   queue_bytes=0       (a non-negative integer)
// Reading is strict: a file that is corrupt or truncated is an Error, one line naming the file
// and what is wrong ("/run/ackstall-lab.conf: line 2: timestamps: expected 0 or 1, got 'x'"),
// never the defaults.
#pragma once

#include <string>
#include <string_view>

#include "ackstall/core/error.h"
#include "ackstall/lab/config.h"

namespace ackstall::lab {

std::string format_state(const LabConfig& cfg);
// Parses the text of a state file; `name` (the path) prefixes every error.
core::Result<LabConfig> parse_state(std::string_view text, std::string_view name);

core::Result<void> write_state_file(const std::string& path, const LabConfig& cfg);
core::Result<LabConfig> read_state_file(const std::string& path);

}  // namespace ackstall::lab
