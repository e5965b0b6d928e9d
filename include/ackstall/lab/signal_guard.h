// ackstall lab: taking SIGINT / SIGTERM on a thread of our own while a lab operation runs.
//
// While a SignalGuard lives, its signals are blocked in the constructing thread and in every
// thread started from it afterwards (the transfer threads), and a watcher thread takes them
// with sigtimedwait and calls `on_signal(sig)` there (the lab's handler removes the lab and
// ends the process). The destructor stops the watcher, hands a signal that is still pending
// for the constructing thread to `on_signal` (it is handled, not lost) and restores the
// previous signal mask; signal dispositions (sigaction) are never changed.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>

namespace ackstall::lab {

class SignalGuard {
 public:
  SignalGuard(std::initializer_list<int> signals, std::function<void(int)> on_signal);
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
  ~SignalGuard();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ackstall::lab
