// lab::run_command: exit status, signals and start failures are one-line core::Errors.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <string>

#include "ackstall/lab/process.h"

namespace ackstall::lab {
namespace {

TEST(LabProcess, ExitZeroIsSuccess) {
  const auto r = run_command({"true"});
  EXPECT_TRUE(r) << r.error();
}

TEST(LabProcess, NonZeroExitNamesTheCommandStatusAndFirstLine) {
  const auto r = run_command({"sh", "-c", "echo first; echo second >&2; exit 3"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "sh -c echo first; echo second >&2; exit 3: exit 3: first");
  const auto quiet = run_command({"false"});
  ASSERT_FALSE(quiet);
  EXPECT_EQ(quiet.error().message(), "false: exit 1");
}

TEST(LabProcess, StderrIsCaptured) {
  const auto r = run_command({"sh", "-c", "echo oops >&2; exit 2"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "sh -c echo oops >&2; exit 2: exit 2: oops");
}

TEST(LabProcess, KilledBySignal) {
  const auto r = run_command({"sh", "-c", "kill -TERM $$"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "sh -c kill -TERM $$: killed by signal 15");
}

TEST(LabProcess, MissingProgramIsAnError) {
  const auto r = run_command({"ackstall-no-such-program", "x"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ackstall-no-such-program x: No such file or directory");
}

TEST(LabProcess, EmptyCommandIsAnError) {
  EXPECT_FALSE(run_command({}));
}

TEST(LabProcess, ChildStartsWithSignalsUnblocked) {
  // The child's SigBlk mask is empty even though this thread blocks SIGTERM.
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &term, &old), 0);
  const auto r = run_command({"sh", "-c", "grep -q '^SigBlk:[[:space:]]*0*$' /proc/self/status"});
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  EXPECT_TRUE(r) << r.error();
}

}  // namespace
}  // namespace ackstall::lab
