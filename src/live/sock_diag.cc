#include "ackstall/live/sock_diag.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace ackstall::live {
namespace {

// include/net/tcp_states.h: the states with a connection (not LISTEN, not CLOSE, not SYN_*).
// TIME_WAIT is left out: a time-wait socket has no tcp_info (and nothing left to send).
constexpr std::uint32_t kConnectedStates = (1U << 1) | (1U << 4) | (1U << 5) | (1U << 8) | (1U << 9) |
                                           (1U << 11);  // ESTABLISHED FIN_WAIT1/2 CLOSE_WAIT LAST_ACK CLOSING

constexpr std::uint8_t kBcCgroupCond = 13;  // INET_DIAG_BC_CGROUP_COND (linux/inet_diag.h, Linux 5.9)

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size() || text.empty() || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

std::optional<std::string> canonical_addr(std::string_view text) {
  const std::string s(text);
  unsigned char buf[sizeof(in6_addr)] = {};
  char out[INET6_ADDRSTRLEN] = {};
  if (inet_pton(AF_INET, s.c_str(), buf) == 1 && inet_ntop(AF_INET, buf, out, sizeof out)) return std::string(out);
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1 && inet_ntop(AF_INET6, buf, out, sizeof out))
    return "[" + std::string(out) + "]";
  return std::nullopt;
}

bool endpoint_matches(const EndpointFilter& f, const std::string& endpoint, std::uint16_t port) {
  if (f.port && *f.port != port) return false;
  if (f.addr.empty()) return true;
  return endpoint.compare(0, f.addr.size(), f.addr) == 0 && endpoint.size() > f.addr.size() &&
         endpoint[f.addr.size()] == ':';
}

}  // namespace

core::Result<EndpointFilter> parse_endpoint_filter(std::string_view text) {
  const auto bad = [text](std::string_view why) {
    return core::fail("endpoint '" + std::string(text) + "': " + std::string(why) +
                      " (ADDR, ADDR:PORT, [V6ADDR]:PORT or :PORT)");
  };
  EndpointFilter f;
  std::string_view addr = text, port;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return bad("no closing ']'");
    addr = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return bad("expected ':' after ']'");
      port = text.substr(close + 2);
      if (port.empty()) return bad("no port after ':'");
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos && text.find(':') == colon) {
    addr = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (port.empty()) return bad("no port after ':'");
  }
  if (!port.empty()) {
    f.port = parse_port(port);
    if (!f.port) return bad("port is not 0-65535");
  }
  if (!addr.empty()) {
    auto c = canonical_addr(addr);
    if (!c) return bad("not an IPv4 or IPv6 address");
    f.addr = *c;
  }
  if (f.addr.empty() && !f.port) return bad("empty");
  return f;
}

bool matches(const SampleFilter& f, const SocketKey& key) {
  if (f.endpoints.empty()) return true;
  for (const EndpointFilter& e : f.endpoints) {
    if (endpoint_matches(e, key.local, key.local_port) || endpoint_matches(e, key.remote, key.remote_port)) return true;
  }
  return false;
}

core::Result<std::uint64_t> cgroup_id(const std::string& path) {
  constexpr long kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC (linux/magic.h)
  std::string full = path;
  if (!path.starts_with('/')) {
    // Relative: to the cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host).
    std::ifstream mounts("/proc/self/mounts");
    std::string line, dev, dir, type;
    std::string root;
    while (std::getline(mounts, line)) {
      std::istringstream in(line);
      if (in >> dev >> dir >> type && type == "cgroup2") {
        root = dir;
        break;
      }
    }
    if (root.empty()) return core::fail("--cgroup " + path + ": no cgroup v2 hierarchy is mounted (/proc/self/mounts)");
    full = root + "/" + path;
  }
  struct statfs fs{};
  if (::statfs(full.c_str(), &fs) != 0) return core::fail("--cgroup " + full + ": " + core::errno_text(errno));
  if (fs.f_type != kCgroup2Magic) return core::fail("--cgroup " + full + ": not a cgroup v2 directory");
  // The id is the 8-byte kernfs file handle (include/linux/kernfs.h, fs/kernfs/mount.c).
  alignas(file_handle) std::array<unsigned char, sizeof(file_handle) + sizeof(std::uint64_t)> buf{};
  auto* fh = reinterpret_cast<file_handle*>(buf.data());
  fh->handle_bytes = sizeof(std::uint64_t);
  int mount_id = 0;
  if (::name_to_handle_at(AT_FDCWD, full.c_str(), fh, &mount_id, 0) != 0) {
    return core::fail("--cgroup " + full + ": name_to_handle_at: " + core::errno_text(errno));
  }
  std::uint64_t id = 0;
  std::memcpy(&id, buf.data() + sizeof(file_handle), sizeof id);
  return id;
}

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

core::Result<SockDiag> SockDiag::open() {
  const int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return core::os_failure("socket(AF_NETLINK, NETLINK_SOCK_DIAG)", errno);
  return SockDiag(fd);
}

SockDiag::SockDiag(SockDiag&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), seq_(other.seq_), skipped_(other.skipped_) {}

SockDiag& SockDiag::operator=(SockDiag&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    seq_ = other.seq_;
    skipped_ = other.skipped_;
  }
  return *this;
}

SockDiag::~SockDiag() {
  if (fd_ >= 0) ::close(fd_);
}

core::Result<std::vector<Sample>> SockDiag::sample(const SampleFilter& filter) {
  std::vector<Sample> out;
  const std::int64_t at = monotonic_ns();
  for (const int family : {AF_INET, AF_INET6}) {
    if (auto ok = dump(family, at, filter, out); !ok) return tl::unexpected(ok.error());
  }
  return out;
}

core::Result<void> SockDiag::dump(int family, std::int64_t at_ns, const SampleFilter& filter,
                                  std::vector<Sample>& out) {
  // With a cgroup, the kernel filters: one bytecode op (net/ipv4/inet_diag.c inet_diag_bc_run)
  // whose "yes" ends the program (accept) and whose "no" jumps 4 bytes past it (reject).
  struct Request {
    nlmsghdr nlh;
    inet_diag_req_v2 req;
    nlattr bc_attr;
    inet_diag_bc_op op;
    std::uint32_t id_lo, id_hi;  // the u64 after the op, 4-byte aligned as the kernel reads it
  } r{};
  static_assert(sizeof(Request) == sizeof(nlmsghdr) + sizeof(inet_diag_req_v2) + sizeof(nlattr) + 4 + 8);
  r.nlh.nlmsg_len = filter.cgroup ? sizeof r : sizeof r.nlh + sizeof r.req;
  if (filter.cgroup) {
    r.bc_attr.nla_type = INET_DIAG_REQ_BYTECODE;
    r.bc_attr.nla_len = sizeof r.bc_attr + sizeof r.op + 8;
    r.op.code = kBcCgroupCond;
    r.op.yes = sizeof r.op + 8;
    r.op.no = static_cast<std::uint16_t>(r.op.yes + 4);
    std::memcpy(&r.id_lo, &*filter.cgroup, 8);
  }
  r.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  r.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  r.nlh.nlmsg_seq = ++seq_;
  r.req.sdiag_family = static_cast<std::uint8_t>(family);
  r.req.sdiag_protocol = IPPROTO_TCP;
  r.req.idiag_states = kConnectedStates;
  r.req.idiag_ext = (1U << (INET_DIAG_INFO - 1)) | (1U << (INET_DIAG_SKMEMINFO - 1));
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd_, &r, r.nlh.nlmsg_len, 0, reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel) < 0) {
    return core::os_failure("sendto(NETLINK_SOCK_DIAG)", errno);
  }
  // A multipart answer, ended by NLMSG_DONE; the buffer holds whole messages (8 KiB or more: the
  // kernel's NLMSG_GOODSIZE page).
  alignas(nlmsghdr) static thread_local std::array<std::byte, 32768> buf;
  for (;;) {
    const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return core::os_failure("recv(NETLINK_SOCK_DIAG)", errno);
    }
    std::size_t off = 0;
    const auto len = static_cast<std::size_t>(n);
    while (off + sizeof(nlmsghdr) <= len) {
      nlmsghdr h{};
      std::memcpy(&h, buf.data() + off, sizeof h);
      if (h.nlmsg_len < sizeof h || off + h.nlmsg_len > len) return core::fail("netlink: truncated message");
      if (h.nlmsg_seq == seq_) {
        if (h.nlmsg_type == NLMSG_DONE) return {};
        if (h.nlmsg_type == NLMSG_ERROR) {
          nlmsgerr e{};
          std::memcpy(&e, buf.data() + off + NLMSG_HDRLEN, std::min<std::size_t>(sizeof e, h.nlmsg_len - NLMSG_HDRLEN));
          if (filter.cgroup && e.error == -EINVAL) {
            return core::fail("--cgroup: this kernel's inet_diag cannot filter by cgroup (Linux 5.9+ can)");
          }
          return core::os_failure("SOCK_DIAG_BY_FAMILY", -e.error);
        }
        if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
          const std::span<const std::byte> payload(buf.data() + off + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
          if (auto s = parse_diag_message(payload, at_ns); !s) {
            ++skipped_;  // closed between the dump and its info: the next sample goes on without it
          } else if (matches(filter, s->key)) {
            out.push_back(std::move(*s));
          }
        }
      }
      off += NLMSG_ALIGN(h.nlmsg_len);
    }
  }
}

}  // namespace ackstall::live
