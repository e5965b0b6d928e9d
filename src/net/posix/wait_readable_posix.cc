// POSIX wait_readable: one poll(POLLIN) over sockets and pipes alike (both are descriptors).
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "../eintr.h"
#include "ackstall/net/wait_readable.h"
#include "os_error.h"

namespace ackstall::net {

using posix::os_error;

Result<std::vector<std::size_t>> wait_readable(std::span<const WaitItem> items,
                                                  int timeout_ms, WaitOptions /*options*/) {
  if (items.size() > kMaxWaitItems) {
    return core::os_failure("poll", EINVAL, "more than 64 items");
  }
  std::array<pollfd, kMaxWaitItems> fds{};
  for (std::size_t i = 0; i < items.size(); ++i) {
    fds[i].fd = items[i].kind == WaitItem::Kind::socket ? items[i].socket : items[i].pipe;
    fds[i].events = POLLIN;
  }
  auto n = detail::retry_on_eintr([&]() -> Result<int> {
    const int r = ::poll(fds.data(), static_cast<nfds_t>(items.size()), timeout_ms);
    if (r < 0) return os_error("poll");
    return r;
  });
  if (!n) return tl::unexpected(n.error());
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if ((fds[i].revents & POLLNVAL) != 0) return os_error("poll", EBADF);
    if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) ready.push_back(i);
  }
  return ready;
}

Result<PipePair> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return os_error("pipe2");
  return PipePair{fds[0], fds[1]};
}

Result<std::size_t> write_pipe(NativePipe p, std::span<const std::byte> data) {
  return detail::retry_on_eintr([&]() -> Result<std::size_t> {
    const ssize_t n = ::write(p, data.data(), data.size());
    if (n < 0) return os_error("write");
    return static_cast<std::size_t>(n);
  });
}

Result<std::size_t> read_pipe(NativePipe p, std::span<std::byte> into) {
  return detail::retry_on_eintr([&]() -> Result<std::size_t> {
    const ssize_t n = ::read(p, into.data(), into.size());
    if (n < 0) return os_error("read");
    return static_cast<std::size_t>(n);
  });
}

void close_pipe(NativePipe p) noexcept {
  if (p >= 0) ::close(p);
}

}  // namespace ackstall::net
