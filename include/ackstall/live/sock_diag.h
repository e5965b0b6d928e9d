// ackstall/live/sock_diag.h — every TCP socket of this host (its network namespace), sampled
// through the kernel's inet_diag netlink interface (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY:
// linux/inet_diag.h, what `ss -ti` reads). No privilege needed: the kernel shows every socket's
// tcp_info to any user.
//
// Own netlink code rather than libmnl: one request and one multipart answer of one message type
// are ~80 lines, fewer than libmnl's callback plumbing, and no new package (rule: Debian packages
// only; the smaller and clearer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/core/error.h"
#include "ackstall/live/tcp_sample.h"

namespace ackstall::live {

// One endpoint a socket must have (either side): ADDR, ADDR:PORT, [V6ADDR]:PORT or :PORT, as
// `scan --flow` spells it.
struct EndpointFilter {
  std::string addr;                 // canonical text (inet_ntop), empty: any address
  std::optional<std::uint16_t> port;
};
core::Result<EndpointFilter> parse_endpoint_filter(std::string_view text);

struct SampleFilter {
  std::vector<EndpointFilter> endpoints;  // empty: every socket; else any of them
  // Only the sockets of this cgroup (v2 id: cgroup_id()), filtered by the kernel (inet_diag
  // bytecode INET_DIAG_BC_CGROUP_COND, Linux 5.9+; an older kernel refuses the request: sample()
  // says so in one line).
  std::optional<std::uint64_t> cgroup;
};

// The id of cgroup v2 directory PATH (absolute, or relative to the cgroup2 mount: /proc/self/mounts),
// as the kernel tags sockets with it (the kernfs node id: name_to_handle_at, as `ss` finds it);
// an error naming PATH when it is no cgroup v2 directory.
core::Result<std::uint64_t> cgroup_id(const std::string& path);
bool matches(const SampleFilter& f, const SocketKey& key);

// A NETLINK_SOCK_DIAG socket, kept open across samples.
class SockDiag {
 public:
  static core::Result<SockDiag> open();
  SockDiag(SockDiag&& other) noexcept;
  SockDiag& operator=(SockDiag&& other) noexcept;
  SockDiag(const SockDiag&) = delete;
  SockDiag& operator=(const SockDiag&) = delete;
  ~SockDiag();

  // Every established (or closing with data unacknowledged) TCP socket, IPv4 and IPv6, that
  // matches FILTER. A socket that closes mid-dump is skipped and counted in skipped().
  core::Result<std::vector<Sample>> sample(const SampleFilter& filter);
  std::uint64_t skipped() const noexcept { return skipped_; }

 private:
  explicit SockDiag(int fd) : fd_(fd) {}
  core::Result<void> dump(int family, std::int64_t at_ns, const SampleFilter& filter, std::vector<Sample>& out);
  int fd_ = -1;
  std::uint32_t seq_ = 0;
  std::uint64_t skipped_ = 0;
};

std::int64_t monotonic_ns();

}  // namespace ackstall::live
