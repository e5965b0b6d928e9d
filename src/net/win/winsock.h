// src/net/win/winsock.h (internal) — what the Winsock files share: start-up, error mapping and
// the blocking-mode registry.
//
// * ensure_winsock(): WSAStartup(2.2) once per process (never WSACleanup: the process owns it).
// * errno_from_wsa(): WSAE* -> the <cerrno> value of the same name (core/error.h's contract), so
//   callers and tests compare against ECONNRESET, EWOULDBLOCK, ... on both platforms. Unknown
//   codes map to EIO; the original stays readable in Error::detail ("WSA error 10093").
// * Winsock cannot report whether a socket is in nonblocking mode (there is no F_GETFL). The
//   library therefore records the mode it sets (set_nonblocking(), connect's temporary switch)
//   in a process-wide registry; a socket made nonblocking behind the library's back (a raw
//   ioctlsocket(FIONBIO)) is reported as blocking. wait_readable's WSAEventSelect switches a
//   socket to nonblocking too; it switches it back unless the registry says nonblocking.
#pragma once

// Declarations up to Windows 10 1703 (TCP_INFO_v0, SIO_TCP_INFO): compiled in, called at run time
// only, so older Windows (and Wine) get an error code from the ioctl, not a load failure.
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00
#endif
#ifndef NTDDI_VERSION
#define NTDDI_VERSION 0x0A000003  // NTDDI_WIN10_RS2
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
// Order matters: winsock2.h before windows.h; iphlpapi.h and mstcpip.h after both.
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>
#include <mstcpip.h>
// <objbase.h> (via windows.h) defines `interface` as `struct`; InterfaceMtu has a member of
// that name.
#undef interface

#include <cerrno>
#include <tl/expected.hpp>
#include <string>
#include <string_view>

#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"

namespace ackstall::net::win {

void ensure_winsock() noexcept;

int errno_from_wsa(int wsa) noexcept;

// The Winsock side's one way to report a failed call (POSIX: src/net/posix/os_error.h): the
// last Winsock error (WSAGetLastError(), read at the call site) or a given WSA code, mapped by
// errno_from_wsa, as core::os_failure. A code that maps to EIO keeps its number in detail.
// Failures decided by the library itself (a timeout) use core::os_failure with an errno value.
tl::unexpected<Error> os_error(std::string_view call, int wsa = ::WSAGetLastError());

// Blocking-mode registry (see above): ioctlsocket(FIONBIO), then record the mode.
Result<void> set_mode_nonblocking(NativeSocket s, bool on);
bool registered_nonblocking(NativeSocket s) noexcept;
void forget_socket(NativeSocket s) noexcept;  // on closesocket

// True when running under Wine (ntdll exports wine_get_version).
bool running_under_wine() noexcept;

}  // namespace ackstall::net::win
