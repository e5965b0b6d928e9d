// scan --annotate OUT.pcapng: the capture written back as pcapng with a comment on each stall's
// waiting segment and releasing packet, and the direction's verdict on its first segment, so
// that Wireshark shows them (frame.comment; filter `frame.comment contains "ackstall"`). Frame
// numbers match the scan's (every record is written, in order). The input is read a second
// time: a file, not stdin.
#pragma once

#include <cstdint>
#include <string>

#include "ackstall/core/error.h"
#include "ackstall/pcap/scan_file.h"

namespace ackstall::report {

// The number of frames that got a comment.
core::Result<std::uint64_t> annotate_capture(const std::string& file, const pcap::FileScan& scan,
                                             const std::string& out_path);

}  // namespace ackstall::report
