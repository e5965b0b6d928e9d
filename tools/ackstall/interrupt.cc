#include "interrupt.h"

#include <csignal>
#include <cstdlib>
#include <mutex>
#include <string>

namespace ackstall::tools {
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

extern "C" void on_signal(int sig) {
  int none = 0;
  if (!g_signal.compare_exchange_strong(none, sig)) std::_Exit(InterruptFlag::exit_code(sig));
}

}  // namespace

InterruptFlag::InterruptFlag() {
  const std::lock_guard lock(g_mutex);
  if (g_users++ > 0) return;
  g_signal.store(0);
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

}  // namespace ackstall::tools
