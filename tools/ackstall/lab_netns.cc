// ackstall lab: namespaces, shaping, and one transfer across them (lab_netns.h).
#include "lab_netns.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

extern char** environ;

namespace ackstall::tools::lab {
namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

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

Status lab_down_locked();

Status ns_exec(const char* ns, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"ip", "netns", "exec", ns});
  return run_command(argv);
}

}  // namespace

bool have_root() noexcept { return ::geteuid() == 0; }

std::string root_problem() {
  if (have_root()) return {};
  return "lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN to create network namespaces); "
         "run it as root, e.g. with sudo";
}

std::optional<double> parse_rate(const std::string& rate) {
  static const std::regex re(R"(^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit)$)");
  std::smatch m;
  if (!std::regex_match(rate, m, re)) return std::nullopt;
  double v = std::stod(m[1].str());
  const std::string unit = m[3].str();
  if (unit == "kbit") v *= 1e3;
  if (unit == "mbit") v *= 1e6;
  if (unit == "gbit") v *= 1e9;
  if (v < 8e3 || v > 100e9) return std::nullopt;
  return v;
}

double line_rate_bytes_per_s(double rate_bits, bool timestamps) {
  // docs/STACKS.md §5: a 1500-byte frame costs 1538 byte-times; payload 1460 (1448 with
  // timestamps).
  return rate_bits / 8.0 * (timestamps ? 1448.0 : 1460.0) / 1538.0;
}

Status run_command(const std::vector<std::string>& argv) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return core::fail(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child starts with no blocked signals and default SIGINT/SIGTERM, even while an
  // InterruptGuard blocks them here.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, dflt;
  sigemptyset(&none);
  sigemptyset(&dflt);
  sigaddset(&dflt, SIGINT);
  sigaddset(&dflt, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &dflt);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  std::string output;
  if (rc == 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
      if (n > 0) {
        output.append(buf, static_cast<std::size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        break;
      }
    }
  }
  ::close(pipefd[0]);
  if (rc != 0) return core::fail(join(argv) + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  std::string first = output.substr(0, output.find('\n'));
  const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                            : "killed by signal " + std::to_string(WTERMSIG(status));
  return core::fail(join(argv) + ": " + how + (first.empty() ? "" : ": " + first));
}

bool lab_present() { return ns_exists(kNsA) || ns_exists(kNsB); }

Status lab_down() {
  std::lock_guard lock(lab_mutex());
  return lab_down_locked();
}

namespace {
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

Status lab_up(const LabConfig& cfg, const Log& log) {
  if (std::string p = root_problem(); !p.empty()) return core::fail(p);
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
      {"ip", "-n", kNsA, "link", "set", "dev", "lo", "up"},
      {"ip", "-n", kNsB, "link", "set", "dev", "lo", "up"},
      // §7: charge the Ethernet overhead per wire frame, not per GSO super-packet.
      {"ip", "-n", kNsA, "link", "set", "dev", kVethA, "gso_max_segs", "1"},
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
                                 "stab", "overhead", "24", "linklayer", "ethernet",
                                 "tbf", "rate", cfg.rate, "burst", "3100"};
  std::istringstream tail(shaper_tail);
  for (std::string w; tail >> w;) tc.push_back(w);
  if (auto r = run_command(tc); !r) return rollback(r.error());
  for (const char* ns : {kNsA, kNsB}) {
    if (auto r = ns_exec(ns, {"sysctl", "-qw", "net.ipv4.tcp_timestamps=" + ts}); !r) return rollback(r.error());
  }
  std::ofstream state(kStateFile);
  state << "rate=" << cfg.rate << "\ntimestamps=" << ts << "\nack_mode=" << to_string(cfg.ack_mode)
        << "\nqueue_bytes=" << cfg.queue_bytes << '\n';
  if (!state) return rollback(core::Error{{}, 0, std::string("cannot write ") + kStateFile});
  return {};
}

std::optional<LabConfig> read_state() {
  if (!ns_exists(kNsA) || !ns_exists(kNsB)) return std::nullopt;
  LabConfig cfg;
  std::ifstream in(kStateFile);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "rate") cfg.rate = v;
    if (k == "timestamps") cfg.timestamps = v == "1";
    if (k == "ack_mode") cfg.ack_mode = parse_ack_mode(v).value_or(AckMode::normal);
    if (k == "queue_bytes") cfg.queue_bytes = std::atoll(v.c_str());
  }
  return cfg;
}

Status enter_namespace(const std::string& name) {
  const std::string path = "/run/netns/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::fail("open " + path + ": " + std::strerror(errno));
  const int rc = ::setns(fd, CLONE_NEWNET);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return core::fail("setns " + name + ": " + std::strerror(err));
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
  std::string what;
  sigset_t signals{};
  sigset_t old{};
  std::atomic<bool> stop{false};
  std::thread watcher;
};

InterruptGuard::InterruptGuard(std::string what) : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.what = std::move(what);
  sigemptyset(&st.signals);
  sigaddset(&st.signals, SIGINT);
  sigaddset(&st.signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &st.signals, &st.old);  // inherited by every thread started now
  st.watcher = std::thread([&st] {
    const timespec tick{0, 50'000'000};  // 50 ms: how soon the destructor's stop is seen
    while (!st.stop.load()) {
      const int sig = ::sigtimedwait(&st.signals, nullptr, &tick);
      if (sig == SIGINT || sig == SIGTERM) interrupted(st.what, sig);
    }
  });
}

InterruptGuard::~InterruptGuard() {
  State& st = *state_;
  st.stop.store(true);
  st.watcher.join();
  // A signal that came after the watcher's last look is still pending: handle it, don't lose it.
  const timespec now{0, 0};
  if (const int sig = ::sigtimedwait(&st.signals, nullptr, &now); sig == SIGINT || sig == SIGTERM) {
    interrupted(st.what, sig);
  }
  ::pthread_sigmask(SIG_SETMASK, &st.old, nullptr);
}

namespace {
// Moves the calling thread into namespace `ns` and, if asked, to SCHED_FIFO.
Status prepare_thread(const char* ns, bool realtime) {
  if (auto r = enter_namespace(ns); !r) return r;
  if (realtime) {
    sched_param sp{};
    sp.sched_priority = kRealtimePriority;
    if (const int rc = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &sp); rc != 0) {
      return core::fail(std::string("lab: SCHED_FIFO for the transfer threads: ") + std::strerror(rc) +
                             " (give --realtime off)");
    }
  }
  return {};
}
}  // namespace

PairOutcome run_pair(TtcpConfig tx, TtcpConfig rx, bool realtime) {
  PairOutcome o;
  tx.transmit = true;
  tx.host = kAddrB;
  rx.transmit = false;
  rx.bind = kAddrB;
  rx.port = tx.port;
  if (rx.accept_timeout_ms < 0) rx.accept_timeout_ms = 15000;
  std::promise<bool> listening;
  auto ready = listening.get_future();
  std::ostringstream rx_out, rx_err, tx_out, tx_err;
  std::thread receiver([&] {
    bool signalled = false;
    if (auto r = prepare_thread(kNsB, realtime); !r) {
      rx_err << "ackstall: " << r.error().message() << '\n';
      o.rx_code = kExitFailure;
    } else {
      o.rx_code = run_ttcp(rx, {rx_out, rx_err}, [&](std::uint16_t) {
        signalled = true;
        listening.set_value(true);
      }, &o.rx);
    }
    if (!signalled) listening.set_value(false);
  });
  if (ready.get()) {
    std::thread transmitter([&] {
      if (auto r = prepare_thread(kNsA, realtime); !r) {
        tx_err << "ackstall: " << r.error().message() << '\n';
        o.tx_code = kExitFailure;
        return;
      }
      o.tx_code = run_ttcp(tx, {tx_out, tx_err}, {}, &o.tx);
    });
    transmitter.join();
  } else {
    o.tx_code = kExitFailure;
    tx_err << "ackstall: ttcp-t: not started: the receiver failed\n";
  }
  receiver.join();
  o.tx_out = tx_out.str();
  o.tx_err = tx_err.str();
  o.rx_out = rx_out.str();
  o.rx_err = rx_err.str();
  return o;
}

}  // namespace ackstall::tools::lab
