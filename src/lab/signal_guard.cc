#include "ackstall/lab/signal_guard.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>

namespace ackstall::lab {

struct SignalGuard::State {
  std::function<void(int)> on_signal;
  sigset_t signals{};
  sigset_t old{};
  std::atomic<bool> stop{false};
  std::thread watcher;
};

SignalGuard::SignalGuard(std::initializer_list<int> signals, std::function<void(int)> on_signal)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.on_signal = std::move(on_signal);
  sigemptyset(&st.signals);
  for (const int sig : signals) sigaddset(&st.signals, sig);
  ::pthread_sigmask(SIG_BLOCK, &st.signals, &st.old);  // inherited by every thread started now
  st.watcher = std::thread([&st] {
    const timespec tick{0, 50'000'000};  // 50 ms: how soon the destructor's stop is seen
    while (!st.stop.load()) {
      if (const int sig = ::sigtimedwait(&st.signals, nullptr, &tick); sig > 0) st.on_signal(sig);
    }
  });
}

SignalGuard::~SignalGuard() {
  State& st = *state_;
  st.stop.store(true);
  st.watcher.join();
  // A signal that came after the watcher's last look is still pending: handle it, don't lose it.
  const timespec now{0, 0};
  if (const int sig = ::sigtimedwait(&st.signals, nullptr, &now); sig > 0) st.on_signal(sig);
  ::pthread_sigmask(SIG_SETMASK, &st.old, nullptr);
}

}  // namespace ackstall::lab
