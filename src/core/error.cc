#include "ackstall/core/error.h"

#include <cerrno>
#include <ostream>
#include <system_error>

namespace ackstall::core {

namespace {
#if defined(_WIN32)
// The Windows C runtime's strerror() knows only the classic errno values (< 100); the POSIX
// supplement MinGW defines (ECONNRESET = 108, ...) comes back as "Unknown error". The Winsock
// port maps WSAE* onto that supplement (core/error.h), so its texts are spelled here, as glibc
// spells them, to give the same messages on both platforms.
const char* posix_supplement_text(int code) noexcept {
  switch (code) {
    case EADDRINUSE: return "Address already in use";
    case EADDRNOTAVAIL: return "Cannot assign requested address";
    case EAFNOSUPPORT: return "Address family not supported by protocol";
    case EALREADY: return "Operation already in progress";
    case ECONNABORTED: return "Software caused connection abort";
    case ECONNREFUSED: return "Connection refused";
    case ECONNRESET: return "Connection reset by peer";
    case EDESTADDRREQ: return "Destination address required";
    case EHOSTUNREACH: return "No route to host";
    case EINPROGRESS: return "Operation now in progress";
    case EISCONN: return "Transport endpoint is already connected";
    case EMSGSIZE: return "Message too long";
    case ENETDOWN: return "Network is down";
    case ENETRESET: return "Connection reset by network";
    case ENETUNREACH: return "Network is unreachable";
    case ENOBUFS: return "No buffer space available";
    case ENOPROTOOPT: return "Protocol not available";
    case ENOTCONN: return "Transport endpoint is not connected";
    case ENOTSOCK: return "Socket operation on non-socket";
    case EOPNOTSUPP: return "Operation not supported";
    case EPROTONOSUPPORT: return "Protocol not supported";
    case EPROTOTYPE: return "Protocol wrong type for socket";
    case ETIMEDOUT: return "Connection timed out";
    case EWOULDBLOCK: return "Resource temporarily unavailable";
    case EPIPE: return "Broken pipe";
    case ENODEV: return "No such device";
    default: return nullptr;
  }
}
#endif

}  // namespace

std::string errno_text(int code) {
#if defined(_WIN32)
  if (const char* text = posix_supplement_text(code)) return text;
#endif
  return std::generic_category().message(code);
}

std::string Error::message() const {
  if (call.empty()) return detail;
  std::string out(call);
  out += ": ";
  out += detail.empty() ? errno_text(code) : detail;
  return out;
}

std::ostream& operator<<(std::ostream& out, const Error& error) { return out << error.message(); }

}  // namespace ackstall::core
