// ackstall/core/error.h — the one error type of every ackstall library.
//
// Contract:
//   * Every fallible library call returns Result<T> = tl::expected<T, Error>: errors are values,
//     never exceptions, in core, net, pcap, sim and scenario alike. tl::expected (Debian
//     libexpected-dev) rather than std::expected because clang 14, the fuzzing compiler, cannot
//     use libstdc++ 12's <expected>, and because MinGW builds the same headers.
//   * An OS failure names the call (`call`, always a string literal: it is a string_view) and
//     its errno value (`code`, POSIX numbering; the Winsock port maps WSAE* codes onto the same
//     <cerrno> names). `detail` replaces strerror's text for calls that report errors outside
//     errno (getaddrinfo).
//   * Any other failure (bad input, a file that is not a capture, an invalid scenario) has an
//     empty `call`, code 0 and the whole one-line message in `detail`, naming what is wrong: the
//     file, record and byte offset, the key or the flag.
//   * message() is one line without a trailing newline; the command line prints it after
//     "ackstall: " (tools/ackstall/app.h, fail()).
//   * "Would block" (EAGAIN / EWOULDBLOCK) is never an Error in the APIs that document a
//     would-block status (Syscalls::send, ChunkedSender::send, recv_some).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

namespace ackstall::core {

struct Error {
  std::string_view call;  // the OS call that failed ("sendmsg", "getsockopt(SO_SNDBUF)"), or ""
  int code = 0;           // errno value for an OS failure, else 0
  std::string detail;     // the message (non-OS), or text replacing strerror (OS)

  bool is_os_error() const noexcept { return !call.empty(); }
  // "sendmsg: Connection reset by peer", "getaddrinfo: Name or service not known", or detail.
  std::string message() const;

  friend bool operator==(const Error&, const Error&) = default;
};

// Streams message() (test failure messages, the command line's one-line errors).
std::ostream& operator<<(std::ostream& out, const Error& error);

template <class T>
using Result = tl::expected<T, Error>;

// A failure that is not an OS call's: the whole one-line message.
inline tl::unexpected<Error> fail(std::string message) {
  return tl::unexpected<Error>(Error{{}, 0, std::move(message)});
}

// An OS call's failure with an explicit errno value (net reads errno / WSAGetLastError itself).
inline tl::unexpected<Error> os_failure(std::string_view call, int code, std::string detail = {}) {
  return tl::unexpected<Error>(Error{call, code, std::move(detail)});
}

// The text of an errno value, spelled as glibc spells it on every platform.
std::string errno_text(int code);

}  // namespace ackstall::core
