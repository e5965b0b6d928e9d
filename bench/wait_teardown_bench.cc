// wait_readable teardown latency: the seed's select.cc fix, measured.
//
// A wait covers an idle anonymous pipe (watched by a helper thread that checks it every 10 ms,
// like Cygwin 1.5's thread_pipe) and a socket. After a random delay (0-20 ms, so the data lands
// at a uniformly random phase of the helper's 10 ms cycle) one byte arrives on the socket; the
// latency is from that send to the wait's return, which includes tearing the helper down. A
// second table isolates the teardown: a wait on the idle pipe alone that ends by its timeout.
//   sleep: the helper sleeps with Sleep(10) — teardown waits for the sleep to end (0-10 ms).
//   event: the helper sleeps on a wake-up event — teardown is immediate (the seed's fix).
// Windows: both designs are net::wait_readable (WaitOptions::pipe_watch). POSIX: wait_readable
// is one poll() (row "poll"); the helper-thread designs are reproduced here with the POSIX
// equivalents (poll(pipe, 0) + nanosleep vs poll(pipe, wakeup-pipe, 10 ms)).
//
//   wait_teardown_bench [--rounds N]      (default 200 per design)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/net/socket_ops.h"
#include "ackstall/net/syscalls.h"
#include "ackstall/net/tcp_socket.h"
#include "ackstall/net/wait_readable.h"

#if !defined(_WIN32)
#include <poll.h>
#include <unistd.h>
#endif

namespace {

using namespace ackstall::net;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

enum class Design { sleep, event, poll };
const char* name(Design d) {
  switch (d) {
    case Design::sleep: return "sleep(10ms) helper";
    case Design::event: return "event helper";
    case Design::poll: return "poll() direct";
  }
  return "?";
}

#if defined(_WIN32)
// Windows: the library's own implementation, both designs.
bool wait_once(Design d, NativePipe pipe, NativeSocket sock) {
  const WaitItem items[] = {WaitItem::of_pipe(pipe), WaitItem::of_socket(sock)};
  const PipeWatch watch = d == Design::sleep ? PipeWatch::sleep : PipeWatch::event;
  auto r = wait_readable(items, 5000, WaitOptions{watch, 10});
  return r && r->size() == 1 && (*r)[0] == 1;
}
bool timeout_once(Design d, NativePipe pipe, int timeout_ms) {
  const WaitItem items[] = {WaitItem::of_pipe(pipe)};
  const PipeWatch watch = d == Design::sleep ? PipeWatch::sleep : PipeWatch::event;
  auto r = wait_readable(items, timeout_ms, WaitOptions{watch, 10});
  return r && r->empty();
}
#else
// POSIX equivalents of the two helper-thread designs (wait_readable itself needs no thread).
// sock < 0: wait on the pipe alone until timeout_ms; returns true on the expected outcome.
bool helper_wait(Design d, NativePipe pipe, NativeSocket sock, int timeout_ms) {
  if (d == Design::poll) {
    if (sock < 0) {
      const WaitItem items[] = {WaitItem::of_pipe(pipe)};
      auto r = wait_readable(items, timeout_ms);
      return r && r->empty();
    }
    const WaitItem items[] = {WaitItem::of_pipe(pipe), WaitItem::of_socket(sock)};
    auto r = wait_readable(items, timeout_ms);
    return r && r->size() == 1 && (*r)[0] == 1;
  }
  int ready[2], wake[2];
  if (::pipe(ready) != 0 || ::pipe(wake) != 0) return false;
  std::atomic<bool> stop{false};
  std::thread helper([&] {
    for (;;) {
      pollfd p{pipe, POLLIN, 0};
      if (::poll(&p, 1, 0) > 0) {
        (void)!::write(ready[1], "r", 1);
        return;
      }
      if (d == Design::sleep) {
        std::this_thread::sleep_for(10ms);
        if (stop.load()) return;
      } else {
        pollfd w{wake[0], POLLIN, 0};
        if (::poll(&w, 1, 10) > 0) return;
      }
    }
  });
  pollfd fds[2] = {{sock, POLLIN, 0}, {ready[0], POLLIN, 0}};  // poll ignores fd -1
  const int n = ::poll(fds, 2, timeout_ms);
  stop = true;
  (void)!::write(wake[1], "w", 1);
  helper.join();
  for (int fd : {ready[0], ready[1], wake[0], wake[1]}) ::close(fd);
  if (sock < 0) return n == 0;
  return n == 1 && (fds[0].revents & POLLIN) != 0;
}
bool wait_once(Design d, NativePipe pipe, NativeSocket sock) {
  return helper_wait(d, pipe, sock, 5000);
}
bool timeout_once(Design d, NativePipe pipe, int timeout_ms) {
  return helper_wait(d, pipe, -1, timeout_ms);
}
#endif

struct Stats {
  std::vector<double> us;
  double pct(double p) const {
    std::vector<double> s = us;
    std::sort(s.begin(), s.end());
    const auto i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(s.size() - 1) + 0.5);
    return s[i];
  }
  double mean() const {
    double t = 0;
    for (double v : us) t += v;
    return t / static_cast<double>(us.size());
  }
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 200;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
  }
  auto l = listen_tcp({"127.0.0.1", 0});
  if (!l) return std::fprintf(stderr, "%s\n", l.error().message().c_str()), 1;
  auto c = connect_tcp({"127.0.0.1", l->port}, 5s);
  if (!c) return std::fprintf(stderr, "%s\n", c.error().message().c_str()), 1;
  auto s = accept_tcp(l->socket);
  if (!s) return std::fprintf(stderr, "%s\n", s.error().message().c_str()), 1;
  auto pipe = make_pipe();
  if (!pipe) return std::fprintf(stderr, "%s\n", pipe.error().message().c_str()), 1;
  Syscalls calls(system_socket_ops());
  (void)calls.set_option(c->native(), SocketOption::tcp_nodelay, 1);

  std::vector<Design> designs = {Design::sleep, Design::event};
#if !defined(_WIN32)
  designs.push_back(Design::poll);
#endif
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> delay_us(0, 20000);
  std::printf("teardown latency, %d rounds per design: send of 1 byte -> wait_readable returns\n",
              rounds);
  std::printf("%-20s %9s %9s %9s %9s %9s %9s   (microseconds)\n", "design", "min", "p50", "p90",
              "p99", "max", "mean");
  double median_sleep = 0, median_event = 0;
  for (Design d : designs) {
    Stats st;
    for (int i = 0; i < rounds; ++i) {
      Clock::time_point sent;
      std::thread t([&] {
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
        const std::byte b{1};
        const ackstall::core::ByteSlice one{&b, 1};
        sent = Clock::now();
        (void)calls.send(c->native(), {&one, 1}, SendFlags::none);
      });
      const bool ok = wait_once(d, pipe->read, s->native());
      const auto returned = Clock::now();
      t.join();
      std::byte got{};
      (void)recv_some(*s, {&got, 1});
      if (!ok) return std::fprintf(stderr, "%s: wait failed\n", name(d)), 1;
      st.us.push_back(std::chrono::duration<double, std::micro>(returned - sent).count());
    }
    std::printf("%-20s %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f\n", name(d), st.pct(0), st.pct(50),
                st.pct(90), st.pct(99), st.pct(100), st.mean());
    if (d == Design::sleep) median_sleep = st.pct(50);
    if (d == Design::event) median_event = st.pct(50);
  }
  std::printf("median ratio sleep/event: %.1fx\n", median_sleep / std::max(median_event, 1.0));

  // Teardown alone: a wait on the idle pipe that ends by its timeout (random 5-25 ms); the
  // overshoot past the timeout is timer slack plus the helper's teardown.
  std::printf("\ntimeout overshoot, %d rounds per design: wait_readable(idle pipe, T) - T\n",
              rounds);
  std::printf("%-20s %9s %9s %9s %9s %9s %9s   (microseconds)\n", "design", "min", "p50", "p90",
              "p99", "max", "mean");
  std::uniform_int_distribution<int> timeout_ms(5, 25);
  median_sleep = median_event = 0;
  for (Design d : designs) {
    Stats st;
    for (int i = 0; i < rounds; ++i) {
      const int t = timeout_ms(rng);
      const auto t0 = Clock::now();
      if (!timeout_once(d, pipe->read, t)) return std::fprintf(stderr, "%s: wait failed\n", name(d)), 1;
      const auto took = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      st.us.push_back(took - t * 1000.0);
    }
    std::printf("%-20s %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f\n", name(d), st.pct(0), st.pct(50),
                st.pct(90), st.pct(99), st.pct(100), st.mean());
    if (d == Design::sleep) median_sleep = st.pct(50);
    if (d == Design::event) median_event = st.pct(50);
  }
  std::printf("median ratio sleep/event: %.1fx\n", median_sleep / std::max(median_event, 1.0));
  close_pipe(pipe->read);
  close_pipe(pipe->write);
  return 0;
}
