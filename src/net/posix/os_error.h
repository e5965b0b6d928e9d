// src/net/posix/os_error.h (internal) — the POSIX side's one way to report a failed OS call.
//
// os_error(call) reads errno; os_error(call, code) reports a code the call did not leave in
// errno (SO_ERROR, a timeout decided by the caller). Both are core::os_failure (core/error.h).
// Winsock's counterpart: win::os_error in src/net/win/winsock.h.
#pragma once

#include <cerrno>
#include <string_view>

#include "ackstall/net/net_error.h"

namespace ackstall::net::posix {

inline tl::unexpected<Error> os_error(std::string_view call, int code = errno) {
  return core::os_failure(call, code);
}

}  // namespace ackstall::net::posix
