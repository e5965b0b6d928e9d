// Internal: does an interface (adapter) address equal a socket's local address? Shared by the
// POSIX (getifaddrs) and Winsock (GetAdaptersAddresses) interface lookups of interface_mtu().
// IPv4-mapped IPv6 local addresses (a dual-stack socket) match the IPv4 interface address.
// Include after the platform's socket headers (sockaddr_storage, sockaddr_in, sockaddr_in6).
#pragma once

#include <array>
#include <cstring>

namespace ackstall::net::detail {

inline bool same_address(const sockaddr_storage& local, const sockaddr* ifa) {
  if (ifa == nullptr) return false;
  in_addr v4{};
  bool local_is_v4 = false;
  if (local.ss_family == AF_INET) {
    v4 = reinterpret_cast<const sockaddr_in&>(local).sin_addr;
    local_is_v4 = true;
  } else if (local.ss_family == AF_INET6) {
    const auto& a6 = reinterpret_cast<const sockaddr_in6&>(local).sin6_addr;
    static constexpr std::array<unsigned char, 12> kMapped = {0, 0, 0, 0, 0, 0,
                                                              0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(a6.s6_addr, kMapped.data(), kMapped.size()) == 0) {
      std::memcpy(&v4, a6.s6_addr + 12, sizeof v4);
      local_is_v4 = true;
    } else if (ifa->sa_family == AF_INET6) {
      const auto& i6 = reinterpret_cast<const sockaddr_in6*>(ifa)->sin6_addr;
      return std::memcmp(a6.s6_addr, i6.s6_addr, sizeof a6.s6_addr) == 0;
    }
  }
  if (local_is_v4 && ifa->sa_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(ifa)->sin_addr.s_addr == v4.s_addr;
  }
  return false;
}

}  // namespace ackstall::net::detail
