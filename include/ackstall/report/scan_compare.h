// ackstall scan --compare BEFORE AFTER: two captures of one service, before and after a change,
// matched and judged by pcap/compare.h; printed as text or JSON.
#pragma once

#include <ostream>

#include "ackstall/pcap/compare.h"
#include "ackstall/pcap/scan_file.h"

namespace ackstall::report {

void print_comparison_text(const pcap::FileScan& before, const pcap::FileScan& after, const pcap::Comparison& c,
                           std::ostream& out);
void print_comparison_json(const pcap::FileScan& before, const pcap::FileScan& after, const pcap::Comparison& c,
                           std::ostream& out);

}  // namespace ackstall::report
