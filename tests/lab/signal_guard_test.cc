// lab::SignalGuard: signals go to the handler (on the watcher, or at destruction if still
// pending), and the previous signal mask and dispositions are restored.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "ackstall/lab/signal_guard.h"

namespace ackstall::lab {
namespace {

bool blocked(int sig) {
  sigset_t now;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &now);
  return sigismember(&now, sig) == 1;
}

TEST(LabSignalGuard, BlocksWhileAliveAndRestoresTheMaskAndHandlers) {
  struct sigaction before_int{}, before_usr{}, after_int{}, after_usr{};
  ::sigaction(SIGINT, nullptr, &before_int);
  ::sigaction(SIGUSR1, nullptr, &before_usr);
  sigset_t before, after;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &before);
  ASSERT_FALSE(blocked(SIGUSR1));
  {
    SignalGuard guard({SIGINT, SIGUSR1}, [](int) {});
    EXPECT_TRUE(blocked(SIGINT));
    EXPECT_TRUE(blocked(SIGUSR1));
    bool in_thread = false;
    std::thread([&] { in_thread = blocked(SIGUSR1); }).join();
    EXPECT_TRUE(in_thread) << "threads started under the guard inherit the block";
  }
  ::pthread_sigmask(SIG_SETMASK, nullptr, &after);
  for (int sig = 1; sig < NSIG; ++sig) EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << sig;
  ::sigaction(SIGINT, nullptr, &after_int);
  ::sigaction(SIGUSR1, nullptr, &after_usr);
  EXPECT_EQ(before_int.sa_handler, after_int.sa_handler);
  EXPECT_EQ(before_usr.sa_handler, after_usr.sa_handler);
}

TEST(LabSignalGuard, ProcessSignalGoesToTheHandler) {
  std::atomic<int> got{0};
  {
    SignalGuard guard({SIGUSR2}, [&](int sig) { got = sig; });
    ASSERT_EQ(::kill(::getpid(), SIGUSR2), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (got == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(got.load(), SIGUSR2);
  }
  EXPECT_FALSE(blocked(SIGUSR2));
}

TEST(LabSignalGuard, SignalStillPendingAtTheEndIsHandledNotLost) {
  int got = 0, calls = 0;
  {
    SignalGuard guard({SIGUSR1}, [&](int sig) {
      got = sig;
      ++calls;
    });
    // Directed at this thread: the watcher cannot take it; the destructor must.
    ASSERT_EQ(::pthread_kill(::pthread_self(), SIGUSR1), 0);
  }
  EXPECT_EQ(got, SIGUSR1);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(blocked(SIGUSR1));
}

}  // namespace
}  // namespace ackstall::lab
