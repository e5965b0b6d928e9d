// ackstall/pcap/error.h — the pcap library reports failures as core::Error (core/error.h).
//
// Error::message() is one line (no trailing newline) that names what is wrong: the file when
// known, the record number (1-based) and byte offset when inside a record, and the field.
#pragma once

#include <string>

#include "ackstall/core/error.h"

namespace ackstall::pcap {

using core::Error;
using core::Result;

inline tl::unexpected<Error> make_error(std::string message) { return core::fail(std::move(message)); }

}  // namespace ackstall::pcap
