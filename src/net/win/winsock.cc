#include "winsock.h"

#include <mutex>
#include <set>

namespace ackstall::net::win {

void ensure_winsock() noexcept {
  static const int started = [] {
    WSADATA data{};
    return ::WSAStartup(MAKEWORD(2, 2), &data);
  }();
  (void)started;  // a failure shows up as WSANOTINITIALISED on the first call
}

int errno_from_wsa(int wsa) noexcept {
  switch (wsa) {
    case 0: return 0;
    case WSAEINTR: return EINTR;
    case WSAEBADF: return EBADF;
    case WSAEACCES: return EACCES;
    case WSAEFAULT: return EFAULT;
    case WSAEINVAL: return EINVAL;
    case WSAEMFILE: return EMFILE;
    case WSAEWOULDBLOCK: return EWOULDBLOCK;
    case WSAEINPROGRESS: return EINPROGRESS;
    case WSAEALREADY: return EALREADY;
    case WSAENOTSOCK: return ENOTSOCK;
    case WSAEDESTADDRREQ: return EDESTADDRREQ;
    case WSAEMSGSIZE: return EMSGSIZE;
    case WSAEPROTOTYPE: return EPROTOTYPE;
    case WSAENOPROTOOPT: return ENOPROTOOPT;
    case WSAEPROTONOSUPPORT: return EPROTONOSUPPORT;
    case WSAEOPNOTSUPP: return EOPNOTSUPP;
    case WSAEAFNOSUPPORT: return EAFNOSUPPORT;
    case WSAEADDRINUSE: return EADDRINUSE;
    case WSAEADDRNOTAVAIL: return EADDRNOTAVAIL;
    case WSAENETDOWN: return ENETDOWN;
    case WSAENETUNREACH: return ENETUNREACH;
    case WSAENETRESET: return ENETRESET;
    case WSAECONNABORTED: return ECONNABORTED;
    case WSAECONNRESET: return ECONNRESET;
    case WSAENOBUFS: return ENOBUFS;
    case WSAEISCONN: return EISCONN;
    case WSAENOTCONN: return ENOTCONN;
    case WSAESHUTDOWN: return EPIPE;  // send after shutdown(SD_SEND): POSIX says EPIPE
    case WSAETIMEDOUT: return ETIMEDOUT;
    case WSAECONNREFUSED: return ECONNREFUSED;
    case WSAEHOSTUNREACH: return EHOSTUNREACH;
    case WSAEHOSTDOWN: return EHOSTUNREACH;
    case WSA_INVALID_HANDLE: return EBADF;
    case WSA_NOT_ENOUGH_MEMORY: return ENOMEM;
    case WSA_INVALID_PARAMETER: return EINVAL;
    default: return EIO;
  }
}

tl::unexpected<Error> os_error(std::string_view call, int wsa) {
  const int code = errno_from_wsa(wsa);
  // Keep the Winsock number when the mapping lost it.
  std::string detail = code == EIO && wsa != WSAEINTR ? "WSA error " + std::to_string(wsa) : "";
  return core::os_failure(call, code, std::move(detail));
}

namespace {
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::set<NativeSocket>& registry() {
  static std::set<NativeSocket> nonblocking;
  return nonblocking;
}
}  // namespace

Result<void> set_mode_nonblocking(NativeSocket s, bool on) {
  u_long arg = on ? 1 : 0;
  if (::ioctlsocket(s, FIONBIO, &arg) != 0) return os_error("ioctlsocket(FIONBIO)");
  const std::scoped_lock lock(registry_mutex());
  if (on) {
    registry().insert(s);
  } else {
    registry().erase(s);
  }
  return {};
}

bool registered_nonblocking(NativeSocket s) noexcept {
  const std::scoped_lock lock(registry_mutex());
  return registry().contains(s);
}

void forget_socket(NativeSocket s) noexcept {
  const std::scoped_lock lock(registry_mutex());
  registry().erase(s);
}

bool running_under_wine() noexcept {
  static const bool wine = [] {
    const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
    return ntdll != nullptr && ::GetProcAddress(ntdll, "wine_get_version") != nullptr;
  }();
  return wine;
}

}  // namespace ackstall::net::win
