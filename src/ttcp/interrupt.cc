#include "ackstall/ttcp/interrupt.h"

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

namespace ackstall::ttcp {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch a lock-free atomic");

using Handler = void (*)(int);
Handler g_old_int = SIG_DFL;
Handler g_old_term = SIG_DFL;

// Instances alive (both ends of a transfer may run in one process, as in the tests): the first
// installs the handlers, the last restores the previous ones.
std::mutex g_mutex;
int g_users = 0;

// When the first signal came (steady clock, ns; 0 while its handler is still running).
std::atomic<std::int64_t> g_first_ns{0};
static_assert(std::atomic<std::int64_t>::is_always_lock_free, "the handler may only touch a lock-free atomic");

std::int64_t now_ns() noexcept {
  // libstdc++'s steady_clock::now() is clock_gettime(CLOCK_MONOTONIC), which POSIX.1-2008 lists
  // as async-signal-safe (signal-safety(7)).
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

extern "C" void on_signal(int sig) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, sig)) {
    g_first_ns.store(now_ns());
    return;
  }
  // One request can arrive twice: timeout(1) signals its child and then its whole process group,
  // the child included (coreutils timeout.c, cleanup()), microseconds apart. Ending the process
  // then lost the report it was printing; only a signal well after the first insists.
  const std::int64_t first = g_first_ns.load();
  if (first == 0 || now_ns() - first < InterruptFlag::kSameRequestNs) return;
  std::_Exit(InterruptFlag::exit_code(sig));
}

}  // namespace

InterruptFlag::InterruptFlag() {
  const std::lock_guard lock(g_mutex);
  if (g_users++ > 0) return;
  g_signal.store(0);
  g_first_ns.store(0);
  g_old_int = std::signal(SIGINT, on_signal);
  g_old_term = std::signal(SIGTERM, on_signal);
}

InterruptFlag::~InterruptFlag() {
  const std::lock_guard lock(g_mutex);
  if (--g_users > 0) return;
  std::signal(SIGINT, g_old_int == SIG_ERR ? SIG_DFL : g_old_int);
  std::signal(SIGTERM, g_old_term == SIG_ERR ? SIG_DFL : g_old_term);
}

const std::atomic<int>& InterruptFlag::flag() const noexcept { return g_signal; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace ackstall::ttcp
