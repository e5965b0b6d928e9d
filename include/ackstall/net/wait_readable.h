// ackstall/net/wait_readable.h — wait until one of a set of sockets and pipes is readable.
//
// The portable form of Cygwin's select() over sockets and pipes, with the seed's select.cc fix
// (the seed patch's pipeinf::wakeup, docs/STACKS.md §0; docs/STACKS.md §2): the wait is torn down at once when it
// ends, not after the pipe thread's next sleep.
//
// Contract:
//   * `items` are borrowed for the call; at most kMaxWaitItems (MAXIMUM_WAIT_OBJECTS = 64 on
//     Windows; the same limit everywhere so behaviour does not depend on the platform).
//   * timeout_ms < 0 waits forever; 0 only checks. Returns the indices (ascending) of the items
//     that are readable — data, end of file / hang-up, an error pending, or (for a listening
//     socket) a connection to accept — or an empty vector on timeout.
//   * EINTR (POSIX) is retried with the full timeout (as Syscalls does).
//
// POSIX: one poll(POLLIN) over every item; pipes and sockets are both file descriptors.
// Windows:
//   * sockets: WSAEventSelect(FD_READ | FD_ACCEPT | FD_CLOSE) on one event per socket, cancelled
//     again before returning. WSAEventSelect switches a socket to nonblocking mode; a socket the
//     library had in blocking mode (winsock registry, src/net/win/winsock.h) is switched back.
//   * anonymous pipes (no overlapped I/O, no waitable readiness): one helper thread per pipe
//     checks PeekNamedPipe every `pipe_poll_ms` and sets a ready event. Between checks it sleeps
//     on a wake-up event (PipeWatch::event, the seed's fix) — so when the wait ends for any
//     reason the helper exits at once — or, for comparison only, with Sleep() (PipeWatch::sleep:
//     Cygwin 1.5's thread_pipe, teardown takes up to one sleep). A broken pipe (writer closed)
//     counts as readable (end of file), as poll() reports POLLHUP.
//   * wait_readable returns only after every helper thread has exited.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ackstall/net/native_socket.h"
#include "ackstall/net/net_error.h"

namespace ackstall::net {

#if defined(_WIN32)
using NativePipe = void*;  // HANDLE of an anonymous pipe's read end
inline const NativePipe kInvalidPipe = reinterpret_cast<void*>(~std::uintptr_t{0});
#else
using NativePipe = int;  // file descriptor of a pipe's read end
inline constexpr NativePipe kInvalidPipe = -1;
#endif

inline constexpr std::size_t kMaxWaitItems = 64;

struct WaitItem {
  enum class Kind : std::uint8_t { socket, pipe };
  Kind kind = Kind::socket;
  NativeSocket socket = kInvalidSocket;  // kind == socket
  NativePipe pipe = kInvalidPipe;        // kind == pipe

  static WaitItem of_socket(NativeSocket s) noexcept { return {Kind::socket, s, kInvalidPipe}; }
  static WaitItem of_pipe(NativePipe p) noexcept { return {Kind::pipe, kInvalidSocket, p}; }
};

// How the Windows pipe helper thread sleeps between PeekNamedPipe checks (ignored on POSIX,
// where poll() waits on pipes directly).
enum class PipeWatch : std::uint8_t {
  event,  // WaitForSingleObject(wakeup, pipe_poll_ms): teardown returns at once (the seed's fix)
  sleep,  // Sleep(pipe_poll_ms): teardown waits for the sleep to end (for the benchmark)
};

struct WaitOptions {
  PipeWatch pipe_watch = PipeWatch::event;
  int pipe_poll_ms = 10;  // Cygwin 1.5's thread_pipe: Sleep(10)
};

Result<std::vector<std::size_t>> wait_readable(std::span<const WaitItem> items,
                                                  int timeout_ms, WaitOptions options = {});

// An anonymous pipe (close-on-exec / not inheritable), for tests and the benchmark.
struct PipePair {
  NativePipe read = kInvalidPipe;
  NativePipe write = kInvalidPipe;
};
Result<PipePair> make_pipe();
Result<std::size_t> write_pipe(NativePipe p, std::span<const std::byte> data);
Result<std::size_t> read_pipe(NativePipe p, std::span<std::byte> into);  // 0 = end of file
void close_pipe(NativePipe p) noexcept;

}  // namespace ackstall::net
