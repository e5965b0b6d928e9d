// Windows wait_readable: sockets through WSAEventSelect, anonymous pipes through one helper
// thread each that polls PeekNamedPipe and sleeps on a wake-up event (the seed's select.cc fix:
// pipeinf::wakeup, so that pipe_cleanup does not wait out a Sleep(10)). See wait_readable.h.
#include "winsock.h"  // first: the Winsock headers in their required order

#include <algorithm>
#include <array>
#include <climits>
#include <thread>

#include "ackstall/net/wait_readable.h"

namespace ackstall::net {
namespace {

using win::os_error;

tl::unexpected<Error> last_win32_error(std::string_view call) {
  const DWORD e = ::GetLastError();
  return core::os_failure(call, EIO, "Win32 error " + std::to_string(e));
}

// Readable now? Data, or the writer is gone (end of file), or the handle is bad (the read
// reports it). Mirrors poll()'s POLLIN | POLLHUP | POLLERR.
bool pipe_ready(HANDLE pipe) {
  DWORD avail = 0;
  if (::PeekNamedPipe(pipe, nullptr, 0, nullptr, &avail, nullptr) == 0) return true;
  return avail > 0;
}

// Zero-timeout check of every item; ready indices appended to `ready`.
Result<void> check_now(std::span<const WaitItem> items, std::vector<std::size_t>& ready) {
  std::array<WSAPOLLFD, kMaxWaitItems> fds{};
  std::array<std::size_t, kMaxWaitItems> index{};
  ULONG nsock = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind != WaitItem::Kind::socket) continue;
    fds[nsock].fd = items[i].socket;
    fds[nsock].events = POLLRDNORM;
    index[nsock++] = i;
  }
  if (nsock > 0 && ::WSAPoll(fds.data(), nsock, 0) == SOCKET_ERROR) {
    return os_error("WSAPoll");
  }
  for (ULONG k = 0; k < nsock; ++k) {
    if ((fds[k].revents & POLLNVAL) != 0) return core::os_failure("WSAPoll", EBADF);
    if ((fds[k].revents & (POLLRDNORM | POLLHUP | POLLERR)) != 0) ready.push_back(index[k]);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind == WaitItem::Kind::pipe && pipe_ready(items[i].pipe)) ready.push_back(i);
  }
  std::sort(ready.begin(), ready.end());
  return {};
}

// Owns the events and helper threads of one wait; the destructor is the teardown: wake every
// helper, join it, cancel WSAEventSelect and restore blocking mode.
class WaitSet {
 public:
  explicit WaitSet(WaitOptions options) : options_(options) {}
  WaitSet(const WaitSet&) = delete;
  WaitSet& operator=(const WaitSet&) = delete;

  ~WaitSet() {
    if (wakeup_ != nullptr) ::SetEvent(wakeup_);
    for (auto& t : threads_) t.join();
    for (const NativeSocket s : sockets_) {
      ::WSAEventSelect(s, nullptr, 0);
      if (!win::registered_nonblocking(s)) {
        u_long off = 0;
        ::ioctlsocket(s, FIONBIO, &off);
      }
    }
    for (HANDLE h : socket_events_) ::WSACloseEvent(h);
    for (HANDLE h : pipe_events_) ::CloseHandle(h);
    if (wakeup_ != nullptr) ::CloseHandle(wakeup_);
  }

  Result<void> add_socket(NativeSocket s) {
    const WSAEVENT e = ::WSACreateEvent();
    if (e == WSA_INVALID_EVENT) return os_error("WSACreateEvent");
    socket_events_.push_back(e);
    if (::WSAEventSelect(s, e, FD_READ | FD_ACCEPT | FD_CLOSE) != 0) {
      return os_error("WSAEventSelect");
    }
    sockets_.push_back(s);
    return {};
  }

  Result<void> add_pipe(HANDLE pipe) {
    if (wakeup_ == nullptr) {
      wakeup_ = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
      if (wakeup_ == nullptr) return last_win32_error("CreateEvent");
    }
    HANDLE ready = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
    if (ready == nullptr) return last_win32_error("CreateEvent");
    pipe_events_.push_back(ready);
    threads_.emplace_back(watch_pipe, pipe, ready, wakeup_, options_);
    return {};
  }

  std::vector<HANDLE> handles() const {
    std::vector<HANDLE> all(socket_events_.begin(), socket_events_.end());
    all.insert(all.end(), pipe_events_.begin(), pipe_events_.end());
    return all;
  }

 private:
  // The helper thread (Cygwin's thread_pipe). Exits when the pipe is ready or on wake-up.
  static void watch_pipe(HANDLE pipe, HANDLE ready, HANDLE wakeup, WaitOptions options) {
    const DWORD period = static_cast<DWORD>(std::max(options.pipe_poll_ms, 1));
    for (;;) {
      if (pipe_ready(pipe)) {
        ::SetEvent(ready);
        return;
      }
      if (options.pipe_watch == PipeWatch::event) {
        if (::WaitForSingleObject(wakeup, period) == WAIT_OBJECT_0) return;
      } else {
        ::Sleep(period);  // Cygwin 1.5: teardown cannot interrupt this
        if (::WaitForSingleObject(wakeup, 0) == WAIT_OBJECT_0) return;
      }
    }
  }

  WaitOptions options_;
  std::vector<NativeSocket> sockets_;
  std::vector<HANDLE> socket_events_;
  std::vector<HANDLE> pipe_events_;
  HANDLE wakeup_ = nullptr;
  std::vector<std::thread> threads_;
};

}  // namespace

Result<std::vector<std::size_t>> wait_readable(std::span<const WaitItem> items,
                                                  int timeout_ms, WaitOptions options) {
  win::ensure_winsock();
  if (items.size() > kMaxWaitItems) {
    return core::os_failure("WaitForMultipleObjects", EINVAL, "more than 64 items");
  }
  std::vector<std::size_t> ready;
  if (auto r = check_now(items, ready); !r) return tl::unexpected(r.error());
  if (!ready.empty() || timeout_ms == 0) return ready;
  if (items.empty()) {
    if (timeout_ms < 0) return core::os_failure("wait_readable", EINVAL, "nothing to wait for");
    ::Sleep(static_cast<DWORD>(timeout_ms));
    return ready;
  }
  {
    WaitSet set(options);
    for (const WaitItem& item : items) {
      auto r = item.kind == WaitItem::Kind::socket ? set.add_socket(item.socket)
                                                   : set.add_pipe(item.pipe);
      if (!r) return tl::unexpected(r.error());
    }
    const std::vector<HANDLE> handles = set.handles();
    const DWORD rc = ::WaitForMultipleObjects(static_cast<DWORD>(handles.size()), handles.data(),
                                              FALSE,
                                              timeout_ms < 0 ? INFINITE
                                                             : static_cast<DWORD>(timeout_ms));
    if (rc == WAIT_FAILED) return last_win32_error("WaitForMultipleObjects");
    if (rc == WAIT_TIMEOUT) return ready;
  }  // teardown here: helpers woken and joined, sockets restored
  if (auto r = check_now(items, ready); !r) return tl::unexpected(r.error());
  return ready;
}

Result<PipePair> make_pipe() {
  HANDLE r = nullptr;
  HANDLE w = nullptr;
  SECURITY_ATTRIBUTES sa{sizeof(SECURITY_ATTRIBUTES), nullptr, FALSE};  // not inheritable
  if (::CreatePipe(&r, &w, &sa, 0) == 0) return last_win32_error("CreatePipe");
  return PipePair{r, w};
}

Result<std::size_t> write_pipe(NativePipe p, std::span<const std::byte> data) {
  DWORD n = 0;
  const DWORD want = static_cast<DWORD>(std::min<std::size_t>(data.size(), ULONG_MAX));
  if (::WriteFile(p, data.data(), want, &n, nullptr) == 0) {
    if (::GetLastError() == ERROR_NO_DATA || ::GetLastError() == ERROR_BROKEN_PIPE) {
      return core::os_failure("WriteFile", EPIPE);
    }
    return last_win32_error("WriteFile");
  }
  return static_cast<std::size_t>(n);
}

Result<std::size_t> read_pipe(NativePipe p, std::span<std::byte> into) {
  DWORD n = 0;
  const DWORD want = static_cast<DWORD>(std::min<std::size_t>(into.size(), ULONG_MAX));
  if (::ReadFile(p, into.data(), want, &n, nullptr) == 0) {
    if (::GetLastError() == ERROR_BROKEN_PIPE) return std::size_t{0};  // writer closed: EOF
    return last_win32_error("ReadFile");
  }
  return static_cast<std::size_t>(n);
}

void close_pipe(NativePipe p) noexcept {
  if (p != nullptr && p != kInvalidPipe) ::CloseHandle(p);
}

}  // namespace ackstall::net
