// ackstall lab: namespaces and shaping (lab_netns.h).
#include "lab_netns.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

#include "ackstall/core/link_framing.h"
#include "lab/signal_guard.h"
#include "lab/state_file.h"

namespace ackstall::tools::lab {
namespace {

bool ns_exists(const char* name) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path("/run/netns") / name, ec);
}

// Serialises lab_up and lab_down, so an interrupt's removal never runs in the middle of a
// lab_up (which would then create namespaces after they were removed).
std::mutex& lab_mutex() {
  static std::mutex m;
  return m;
}

Status ns_exec(const char* ns, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"ip", "netns", "exec", ns});
  return run_command(argv);
}

Status lab_down_locked() {
  Status result;
  for (const char* ns : {kNsA, kNsB}) {
    if (!ns_exists(ns)) continue;
    if (auto r = run_command({"ip", "netns", "delete", ns}); !r && result) result = r;
  }
  std::error_code ec;
  std::filesystem::remove(kStateFile, ec);
  return result;
}

}  // namespace

bool have_root() noexcept { return ::geteuid() == 0; }

Status check_root() {
  if (have_root()) return {};
  return core::fail("lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN to create network namespaces); "
                    "run it as root, e.g. with sudo");
}

bool lab_present() { return ns_exists(kNsA) || ns_exists(kNsB); }

Status lab_down() {
  std::lock_guard lock(lab_mutex());
  return lab_down_locked();
}

Status lab_up(const LabConfig& cfg, const Log& log) {
  if (auto r = check_root(); !r) return r;
  if (!parse_rate(cfg.rate)) return core::fail("lab: bad --rate '" + cfg.rate + "'");
  std::lock_guard lock(lab_mutex());
  if (lab_present()) {
    if (log) log(std::string("lab: removing a stale lab (") + kNsA + ", " + kNsB + ") left by an earlier run");
    if (auto r = lab_down_locked(); !r) return core::fail("lab: cannot remove the stale lab: " + r.error().message());
  }
  const std::string ts = cfg.timestamps ? "1" : "0";
  const std::string shaper_tail =
      cfg.queue_bytes > 0 ? "limit " + std::to_string(cfg.queue_bytes) : std::string("latency 20ms");
  const std::vector<std::vector<std::string>> steps = {
      {"ip", "netns", "add", kNsA},
      {"ip", "netns", "add", kNsB},
      {"ip", "link", "add", kVethA, "netns", kNsA, "type", "veth", "peer", "name", kVethB, "netns", kNsB},
      {"ip", "-n", kNsA, "addr", "add", std::string(kAddrA) + "/24", "dev", kVethA},
      {"ip", "-n", kNsB, "addr", "add", std::string(kAddrB) + "/24", "dev", kVethB},
      {"ip", "-n", kNsA, "-6", "addr", "add", std::string(kAddr6A) + "/64", "dev", kVethA, "nodad"},
      {"ip", "-n", kNsB, "-6", "addr", "add", std::string(kAddr6B) + "/64", "dev", kVethB, "nodad"},
      {"ip", "-n", kNsA, "link", "set", "dev", "lo", "up"},
      {"ip", "-n", kNsB, "link", "set", "dev", "lo", "up"},
      // §7: charge the Ethernet overhead per wire frame, not per GSO super-packet.
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "gso_max_segs", "1"},
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "mtu", std::to_string(cfg.mtu)},
      {"ip", "-n", kNsB, "link", "set", "dev", kVethB, "mtu", std::to_string(cfg.mtu)},
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "up"},
      {"ip", "-n", kNsB, "link", "set", "dev", kVethB, "up"},
  };
  const auto rollback = [](const core::Error& why) -> Status {
    (void)lab_down_locked();
    return core::fail("lab up: " + why.message());
  };
  for (const auto& s : steps) {
    if (auto r = run_command(s); !r) return rollback(r.error());
  }
  std::vector<std::string> tc = {"tc", "-n", kNsA, "qdisc", "add", "dev", kVethA, "root",
                                 // the skb holds the 14-byte Ethernet header; stab adds the rest
                                 // of the 38 on the wire: preamble/SFD, FCS and gap, 24
                                 "stab", "overhead",
                                 std::to_string(core::kEthernetOverheadBytes - core::kEthernetHeaderBytes),
                                 "linklayer", "ethernet", "tbf", "rate", cfg.rate, "burst",
                                 // two full frames (3100 at MTU 1500: §7); more for jumbo frames
                                 std::to_string(std::max(3100, 2 * (cfg.mtu + core::kEthernetOverheadBytes)))};
  std::istringstream tail(shaper_tail);
  for (std::string w; tail >> w;) tc.push_back(w);
  if (auto r = run_command(tc); !r) return rollback(r.error());
  for (const char* ns : {kNsA, kNsB}) {
    if (auto r = ns_exec(ns, {"sysctl", "-qw", "net.ipv4.tcp_timestamps=" + ts}); !r) return rollback(r.error());
  }
  if (auto r = write_state_file(kStateFile, cfg); !r) return rollback(r.error());
  return {};
}

core::Result<std::optional<LabConfig>> read_state() {
  if (!ns_exists(kNsA) || !ns_exists(kNsB)) return std::optional<LabConfig>();
  auto cfg = read_state_file(kStateFile);
  if (!cfg) return tl::unexpected(cfg.error());
  return std::optional<LabConfig>(*cfg);
}

Status enter_namespace(const std::string& name) {
  const std::string path = "/run/netns/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::fail("open " + path + ": " + core::errno_text(errno));
  const int rc = ::setns(fd, CLONE_NEWNET);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return core::fail("setns " + name + ": " + core::errno_text(err));
  return {};
}

namespace {
[[noreturn]] void interrupted(const std::string& what, int sig) {
  std::unique_lock lock(lab_mutex());  // a lab_up in progress finishes first; never unlocked
  const Status down = lab_down_locked();
  const std::string line = "ackstall: " + what + ": interrupted by " +
                           (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                           (down ? "; lab removed\n" : "; lab removal failed: " + down.error().message() + "\n");
  std::fflush(stdout);  // what the command printed so far (std::cout is synced with stdio)
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(128 + sig);
}
}  // namespace

struct InterruptGuard::State {
  explicit State(std::string what)
      : signals({SIGINT, SIGTERM}, [what = std::move(what)](int sig) { interrupted(what, sig); }) {}
  SignalGuard signals;
};

InterruptGuard::InterruptGuard(std::string what) : state_(std::make_unique<State>(std::move(what))) {}

InterruptGuard::~InterruptGuard() = default;

}  // namespace ackstall::tools::lab
