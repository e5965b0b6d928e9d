// ackstall lab: namespaces and shaping (ackstall/lab/netns.h).
#include "ackstall/lab/netns.h"

#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "ackstall/core/link_framing.h"
#include "ackstall/lab/delay_line.h"
#include "ackstall/lab/signal_guard.h"
#include "ackstall/lab/state_file.h"

namespace ackstall::lab {
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

// The processes whose network namespace is `ns` (what `ip netns pids` lists: same inode).
std::vector<pid_t> pids_in(const char* ns) {
  std::vector<pid_t> pids;
  struct stat target{};
  if (::stat((std::string("/run/netns/") + ns).c_str(), &target) != 0) return pids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st{};
    if (::stat((e.path() / "ns" / "net").c_str(), &st) == 0 && st.st_ino == target.st_ino &&
        st.st_dev == target.st_dev) {
      pids.push_back(static_cast<pid_t>(std::stoi(name)));
    }
  }
  return pids;
}

// Gone, or a zombie nobody reaps yet (it holds no namespace then).
bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// SIGTERM to every process in ackstall-m (the delay line), SIGKILL to any left after 2 s.
void stop_middle() {
  auto pids = pids_in(kNsM);
  for (pid_t p : pids) ::kill(p, SIGTERM);
  for (int i = 0; i < 200 && !pids.empty(); ++i) {
    std::erase_if(pids, gone);
    if (!pids.empty()) ::usleep(10'000);
  }
  for (pid_t p : pids) ::kill(p, SIGKILL);
}

Status lab_down_locked() {
  Status result;
  stop_middle();
  for (const char* ns : {kNsA, kNsB, kNsM}) {
    if (!ns_exists(ns)) continue;
    if (auto r = run_command({"ip", "netns", "delete", ns}); !r && result) result = r;
  }
  std::error_code ec;
  std::filesystem::remove(kStateFile, ec);
  return result;
}

// The fd on which the delay line's process reports that it is ready ("R") or why it failed.
constexpr int kReadyFd = 3;

void report_ready() {
  (void)!::write(kReadyFd, "R", 1);
  ::close(kReadyFd);
}

// Starts the delay line in ackstall-m as a detached process (double fork: never this process's
// child, so nothing here has to reap it; lab_down stops it by namespace) and waits until its
// sockets are bound. Its stdio is /dev/null and it holds no other descriptor of this process.
Status start_delay_line(const DelayLineConfig& line) {
  int pfd[2];
  if (::pipe2(pfd, O_CLOEXEC) != 0) return core::os_failure("delay line: pipe2", errno);
  const pid_t first = ::fork();
  if (first < 0) {
    const int err = errno;
    ::close(pfd[0]);
    ::close(pfd[1]);
    return core::os_failure("delay line: fork", err);
  }
  if (first == 0) {
    if (::fork() != 0) ::_exit(0);
    ::setsid();
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
    ::dup2(pfd[1], kReadyFd);
    ::close_range(kReadyFd + 1, ~0U, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
    auto r = enter_namespace(kNsM);
    if (r) r = run_delay_line(line, report_ready);
    if (!r) {
      const std::string why = "E" + r.error().message();
      (void)!::write(kReadyFd, why.data(), why.size());
    }
    ::_exit(r ? 0 : 1);
  }
  ::close(pfd[1]);
  int status = 0;
  while (::waitpid(first, &status, 0) < 0 && errno == EINTR) {
  }
  pollfd p{pfd[0], POLLIN, 0};
  std::string said;
  char buf[512];
  for (int waited = 0; waited < 5000 && said.empty(); waited += 100) {
    if (::poll(&p, 1, 100) > 0) {
      const ssize_t n = ::read(pfd[0], buf, sizeof buf);
      if (n <= 0) break;  // it ended without a word
      said.assign(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(pfd[0]);
  if (said == "R") return {};
  if (said.size() > 1 && said[0] == 'E') return core::fail(said.substr(1));
  return core::fail("delay line in " + std::string(kNsM) + " did not start within 5 s");
}

}  // namespace

bool have_root() noexcept { return ::geteuid() == 0; }

Status check_root() {
  if (have_root()) return {};
  return core::fail("lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN to create network namespaces); "
                    "run it as root, e.g. with sudo");
}

bool lab_present() { return ns_exists(kNsA) || ns_exists(kNsB) || ns_exists(kNsM); }

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
  const bool middle = cfg.middle();
  // The shaped interface: a's own with no middle host, else the middle's way out to b.
  const char* shaped_ns = middle ? kNsM : kNsA;
  const char* shaped_dev = middle ? kVethMB : kVethA;
  const std::string mtu = std::to_string(cfg.mtu);
  std::vector<std::vector<std::string>> steps = {
      {"ip", "netns", "add", kNsA},
      {"ip", "netns", "add", kNsB},
  };
  if (middle) {
    steps.push_back({"ip", "netns", "add", kNsM});
    // The middle is a cable, not a host: no IPv6 link-local chatter of its own on the path.
    steps.push_back({"ip", "netns", "exec", kNsM, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                     "net.ipv6.conf.default.disable_ipv6=1"});
    steps.push_back({"ip", "link", "add", kVethA, "netns", kNsA, "type", "veth", "peer", "name", kVethMA, "netns", kNsM});
    steps.push_back({"ip", "link", "add", kVethMB, "netns", kNsM, "type", "veth", "peer", "name", kVethB, "netns", kNsB});
  } else {
    steps.push_back({"ip", "link", "add", kVethA, "netns", kNsA, "type", "veth", "peer", "name", kVethB, "netns", kNsB});
  }
  const std::vector<std::vector<std::string>> common = {
      {"ip", "-n", kNsA, "addr", "add", std::string(kAddrA) + "/24", "dev", kVethA},
      {"ip", "-n", kNsB, "addr", "add", std::string(kAddrB) + "/24", "dev", kVethB},
      {"ip", "-n", kNsA, "-6", "addr", "add", std::string(kAddr6A) + "/64", "dev", kVethA, "nodad"},
      {"ip", "-n", kNsB, "-6", "addr", "add", std::string(kAddr6B) + "/64", "dev", kVethB, "nodad"},
      {"ip", "-n", kNsA, "link", "set", "dev", "lo", "up"},
      {"ip", "-n", kNsB, "link", "set", "dev", "lo", "up"},
      // §7: charge the Ethernet overhead per wire frame, not per GSO super-packet.
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "gso_max_segs", "1"},
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "mtu", mtu},
      {"ip", "-n", kNsB, "link", "set", "dev", kVethB, "mtu", mtu},
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "up"},
      {"ip", "-n", kNsB, "link", "set", "dev", kVethB, "up"},
  };
  steps.insert(steps.end(), common.begin(), common.end());
  if (middle) {
    // b's replies cross the middle too: wire-sized frames both ways.
    steps.push_back({"ip", "-n", kNsB, "link", "set", "dev", kVethB, "gso_max_segs", "1"});
    for (const char* dev : {kVethMA, kVethMB}) {
      steps.push_back({"ip", "-n", kNsM, "link", "set", "dev", dev, "mtu", mtu});
      steps.push_back({"ip", "-n", kNsM, "link", "set", "dev", dev, "up"});
    }
  }
  if (cfg.receiver_acks == ReceiverAcks::windows) {
    // The receiver ACKs every segment at once (the route's quickack metric, ip-route(8): the
    // kernel's tcp_in_quickack_mode, whatever TCP_QUICKACK the socket sets) and the thinner in
    // the middle host holds them back to Windows' rule (lab/ack_thinner.h). The replaced routes
    // keep the kernel's own metrics (IPv4 0, IPv6 256), so they replace, not shadow.
    steps.push_back({"ip", "-n", kNsB, "route", "replace", "10.77.0.0/24", "dev", kVethB, "proto", "kernel",
                     "scope", "link", "src", kAddrB, "quickack", "1"});
    steps.push_back({"ip", "-n", kNsB, "-6", "route", "replace", "fd77::/64", "dev", kVethB, "proto", "kernel",
                     "metric", "256", "quickack", "1"});
  }
  const auto rollback = [](const core::Error& why) -> Status {
    (void)lab_down_locked();
    return core::fail("lab up: " + why.message());
  };
  for (const auto& s : steps) {
    if (auto r = run_command(s); !r) return rollback(r.error());
  }
  std::vector<std::string> tc = {"tc", "-n", shaped_ns, "qdisc", "add", "dev", shaped_dev, "root",
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
  if (middle) {
    const DelayLineConfig line{kVethMA, kVethMB, std::chrono::nanoseconds(cfg.rtt_ns / 2),
                               cfg.receiver_acks == ReceiverAcks::windows, cfg.drop_tails, cfg.drop_seed};
    if (auto r = start_delay_line(line); !r) return rollback(r.error());
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

Status enter_namespace(const std::string& name, int realtime_priority) {
  if (auto r = enter_namespace(name); !r) return r;
  sched_param sp{};
  sp.sched_priority = realtime_priority;
  if (const int rc = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &sp); rc != 0) {
    return core::fail("lab: SCHED_FIFO for the transfer threads: " + core::errno_text(rc) + " (give --realtime off)");
  }
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

}  // namespace ackstall::lab
