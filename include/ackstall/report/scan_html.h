// scan --report FILE.html: one capture's findings as a single self-contained HTML page — the
// capture's facts, the triage table (pcap/triage.h, sortable by any column), and for each
// connection with a problem its time-sequence graph with where the time went as bands below
// (inline SVG), its evidence and its fixes. No script, style or font is fetched: the page opens
// anywhere, offline, and can be attached to a ticket (as flamegraph.pl's and Lighthouse's
// reports are one file).
#pragma once

#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/core/units.h"
#include "ackstall/pcap/scan_file.h"
#include "ackstall/pcap/triage.h"
#include "ackstall/report/time_sequence_plot.h"

namespace ackstall::report {

struct HtmlConnection {
  const pcap::TriageRow* row = nullptr;
  TimeSequence graph;  // of row->judged()
};

// The page's text; `connections` are the ones drawn in full, in order.
std::string render_html_report(const pcap::FileScan& scan, const pcap::Triage& triage,
                               const std::vector<HtmlConnection>& connections, core::StallThreshold threshold);

// Scans nothing itself: triage of `scan`, the graphs of the rows to show (problem rows among the
// first `top`, or every row with `all`) read from `files` (the capture, or a --merge's files) in
// one more pass, written to `path`.
core::Result<std::size_t> write_html_report(const std::vector<std::string>& files, const std::string& bpf, const pcap::FileScan& scan,
                                            std::size_t top, bool all, core::StallThreshold threshold,
                                            const std::string& path);

}  // namespace ackstall::report
