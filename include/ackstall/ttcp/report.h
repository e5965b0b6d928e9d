// ackstall/ttcp/report.h — what `ackstall ttcp` prints for one end: ttcp's classic lines (the
// setup, each --interval, the emulated quota's and the stall counts, the summary) or one JSON
// document with iperf3 -J's field names (tests and bench/ttcp_vs_iperf3.sh read them).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "ackstall/ttcp/config.h"
#include "ackstall/ttcp/result.h"
#include "ackstall/ttcp/transfer.h"

namespace ackstall::ttcp {

// "ttcp-t:   0.00-1.00    sec  ... MB/s   3 stalls": one --interval.
void print_interval(std::ostream& out, std::string_view who, const Interval& i);
// The "chunk=..." line: how the transmitter splits its sends.
void print_setup(std::ostream& out, std::string_view who, const SenderSetup& s);
// The end of a transfer as ttcp prints it: interrupted or lost, the transmitter's quota and TCP
// lines (`verbose`: -v), --verify, the stall line and the summary.
void print_result(std::ostream& out, const Config& cfg, bool verbose, std::string_view who, const TransferResult& r);
// The --json document (indented by 2, no trailing newline).
std::string result_json(const Config& cfg, const TransferResult& r);

}  // namespace ackstall::ttcp
