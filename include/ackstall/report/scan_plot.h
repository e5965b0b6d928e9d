// scan --plot: the time-sequence graph of one direction of a capture, in the style of
// `sim --plot` (time_sequence_plot.h), with where the time went as bands below: one lane per
// limiting cause (core/limit_cause.h), from the scan's timeline (ScanOptions::cause_timeline).
//
// A second pass over the file collects that direction's data segments (sequence relative to its
// first byte) and the other side's cumulative ACKs; the stalls come from the scan. Times are
// seconds since the capture's first record, as in scan's JSON. The file must be readable twice
// (not stdin, not a live capture).
#pragma once

#include <string>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/pcap/scan_file.h"
#include "ackstall/report/time_sequence_plot.h"

namespace ackstall::report {

// The time-sequence data of each of `directions` (data segments, the other side's cumulative
// ACKs and offered window, the cause spans of its timeline as `stalls` in one lane per cause),
// read in one pass over the files (several: a ring buffer scanned with --merge; each series is
// put in time order afterwards, whatever the files' order).
core::Result<std::vector<TimeSequence>> collect_time_sequences(const std::vector<std::string>& files, const std::string& bpf,
                                                              const pcap::FileScan& scan,
                                                              const std::vector<const pcap::DirectionReport*>& directions);

core::Result<void> plot_capture(const std::string& file, const std::string& bpf, const pcap::FileScan& scan,
                                const pcap::DirectionReport& direction, const std::string& path,
                                const PlotWindow& window);

}  // namespace ackstall::report
