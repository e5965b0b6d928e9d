#include "ackstall/lab/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace ackstall::lab {
namespace {

// Reads `fd` to its end (EINTR retried).
std::string read_all(int fd) {
  std::string output;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return output;
    }
  }
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

namespace {
// posix_spawnp with the signal set-up run_command documents; the file actions are the caller's.
int spawn(pid_t* pid, const std::vector<std::string>& argv, const posix_spawn_file_actions_t* fa) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
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
  const int rc = ::posix_spawnp(pid, args[0], fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  return rc;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}
}  // namespace

core::Result<BackgroundCommand> BackgroundCommand::start(const std::vector<std::string>& argv) {
  if (argv.empty()) return core::fail("BackgroundCommand: no command");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int fd = 0; fd <= 2; ++fd) posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
  pid_t pid = -1;
  const int rc = spawn(&pid, argv, &fa);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return core::fail(command_line(argv) + ": " + core::errno_text(rc));
  return BackgroundCommand(pid, command_line(argv));
}

bool BackgroundCommand::running() {
  if (pid_ < 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  pid_ = -1;  // exited (or cannot be waited for): nothing left to stop
  return false;
}

core::Result<void> BackgroundCommand::stop() {
  if (pid_ < 0) return {};
  ::kill(pid_, SIGTERM);
  const int status = wait_for(pid_);
  pid_ = -1;
  if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) || (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM))
    return {};
  return core::fail(what_ + ": " + (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                       : "killed by signal " + std::to_string(WTERMSIG(status))));
}

core::Result<void> run_command(const std::vector<std::string>& argv) {
  if (argv.empty()) return core::fail("run_command: no command");
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return core::os_failure("pipe2", errno);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  pid_t pid = -1;
  const int rc = spawn(&pid, argv, &fa);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  const std::string output = rc == 0 ? read_all(pipefd[0]) : std::string();
  ::close(pipefd[0]);
  if (rc != 0) return core::fail(command_line(argv) + ": " + core::errno_text(rc));
  const int status = wait_for(pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const std::string first = output.substr(0, output.find('\n'));
  const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                            : "killed by signal " + std::to_string(WTERMSIG(status));
  return core::fail(command_line(argv) + ": " + how + (first.empty() ? "" : ": " + first));
}

}  // namespace ackstall::lab
