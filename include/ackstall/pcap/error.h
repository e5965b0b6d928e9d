// ackstall/pcap/error.h — errors at the pcap library boundary are values, never exceptions.
//
// Error::message is one line (no trailing newline) that names what is wrong: the file when known,
// the record number (1-based) and byte offset when inside a record, and the field. The command
// line prints it after "ackstall: ". tl::expected (Debian libexpected-dev) rather than
// std::expected because clang 14 (the fuzzing compiler) cannot use libstdc++'s <expected>.
#pragma once

#include <string>
#include <tl/expected.hpp>

namespace ackstall::pcap {

struct Error {
  std::string message;
};

template <class T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> make_error(std::string message) {
  return tl::unexpected<Error>(Error{std::move(message)});
}

}  // namespace ackstall::pcap
