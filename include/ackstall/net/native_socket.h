// ackstall/net/native_socket.h — the OS socket handle type, without OS headers.
//
// POSIX: a file descriptor (int, invalid = -1). Windows: SOCKET (UINT_PTR, invalid = ~0).
#pragma once

#include <cstdint>

namespace ackstall::net {

#if defined(_WIN32)
using NativeSocket = std::uintptr_t;
inline constexpr NativeSocket kInvalidSocket = ~NativeSocket{0};
#else
using NativeSocket = int;
inline constexpr NativeSocket kInvalidSocket = -1;
#endif

}  // namespace ackstall::net
