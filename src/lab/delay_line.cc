#include "ackstall/lab/delay_line.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <vector>

#include "ackstall/lab/ack_thinner.h"
#include "ackstall/lab/delay_queue.h"
#include "ackstall/lab/tail_drop.h"

namespace ackstall::lab {
namespace {

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop(int) { g_stop = 1; }

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

class PacketSocket {
 public:
  PacketSocket() = default;
  PacketSocket(const PacketSocket&) = delete;
  PacketSocket& operator=(const PacketSocket&) = delete;
  ~PacketSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  core::Result<void> open(const std::string& ifname) {
    const unsigned index = ::if_nametoindex(ifname.c_str());
    if (index == 0) return core::fail("delay line: no interface " + ifname + ": " + core::errno_text(errno));
    fd_ = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_ALL));
    if (fd_ < 0) return core::os_failure("delay line: socket(AF_PACKET)", errno);
    const int one = 1;
    if (::setsockopt(fd_, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) != 0)
      return core::os_failure("delay line: PACKET_VNET_HDR", errno);
    if (::setsockopt(fd_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) != 0)
      return core::os_failure("delay line: PACKET_IGNORE_OUTGOING", errno);
    // A frame sent stays charged to this socket while it waits in the shaper's queue, and a burst
    // read waits in the receive buffer until the line drains it: both buffers well above what the
    // shaper holds, so the shaper's queue is the only place the path drops (root may pass
    // net.core.wmem_max/rmem_max: SO_SNDBUFFORCE, SO_RCVBUFFORCE, socket(7)).
    const int bytes = 16 << 20;
    if (::setsockopt(fd_, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) != 0)
      return core::os_failure("delay line: SO_SNDBUFFORCE", errno);
    if (::setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0)
      return core::os_failure("delay line: SO_RCVBUFFORCE", errno);
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = static_cast<int>(index);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&sll), sizeof sll) != 0)
      return core::os_failure("delay line: bind " + ifname, errno);
    return {};
  }
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
};

// PACKET_VNET_HDR puts a struct virtio_net_hdr (linux/virtio_net.h: flags, gso_type, hdr_len,
// gso_size, csum_start, csum_offset; 10 bytes) before each frame; the line passes it on as read.
// (The header itself is not included: its `__u8 class;` does not compile as C++.)
constexpr std::size_t kVnetHdrBytes = 10;
// The most a frame with its header can be (a 64 KiB GSO packet plus headers).
constexpr std::size_t kMaxFrame = kVnetHdrBytes + 65536 + 256;
// Queue bound per direction: far above any bandwidth-delay product the lab shapes (a 1 s delay at
// 100 Mbit/s is 12.5 MB), so the line itself never drops.
constexpr std::size_t kQueueLimit = 64u << 20;

}  // namespace

core::Result<void> run_delay_line(const DelayLineConfig& cfg, void (*ready)()) {
  std::array<PacketSocket, 2> sock;
  if (auto r = sock[0].open(cfg.interface_a); !r) return r;
  if (auto r = sock[1].open(cfg.interface_b); !r) return r;
  struct sigaction sa{};
  sa.sa_handler = on_stop;
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  // SIGTERM/SIGINT only interrupt ppoll, so a signal between the check and the wait is not lost.
  sigset_t blocked, during_wait;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  ::sigprocmask(SIG_BLOCK, &blocked, &during_wait);
  sigdelset(&during_wait, SIGTERM);
  sigdelset(&during_wait, SIGINT);
  if (ready) ready();
  const std::int64_t delay = cfg.one_way.count();
  // queue[i]: frames that arrived on sock[i], leaving through sock[1 - i]
  std::array<DelayQueue, 2> queue{DelayQueue(delay, kQueueLimit), DelayQueue(delay, kQueueLimit)};
  // With windows_acks: frames from b (sock[1]) pass the thinner before they enter queue[1].
  AckThinner thinner;
  // With drop_tails: frames from a (sock[0]) that end a write may be dropped before anything else
  // sees them (the thinner never counts a segment the receiver never got).
  TailDropper dropper(cfg.drop_tails, cfg.drop_seed);
  std::vector<std::byte> buf(kMaxFrame);
  while (!g_stop) {
    std::int64_t wake = -1;
    for (const auto& q : queue) {
      if (auto due = q.next_due(); due && (wake < 0 || *due < wake)) wake = *due;
    }
    if (auto due = thinner.next_due(); cfg.windows_acks && due && (wake < 0 || *due < wake)) wake = *due;
    timespec timeout{};
    timespec* tp = nullptr;
    if (wake >= 0) {
      const std::int64_t left = std::max<std::int64_t>(0, wake - now_ns());
      timeout = {static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
      tp = &timeout;
    }
    std::array<pollfd, 2> pfd{{{sock[0].fd(), POLLIN, 0}, {sock[1].fd(), POLLIN, 0}}};
    if (::ppoll(pfd.data(), pfd.size(), tp, &during_wait) < 0 && errno != EINTR)
      return core::os_failure("delay line: ppoll", errno);
    for (std::size_t i = 0; i < 2; ++i) {
      if (!(pfd[i].revents & POLLIN)) continue;
      for (;;) {  // drain: every frame waiting now arrived now
        const ssize_t n = ::recv(sock[i].fd(), buf.data(), buf.size(), 0);
        if (n < 0) {
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          if (errno == EINTR) continue;
          return core::os_failure("delay line: recv on " + (i ? cfg.interface_b : cfg.interface_a), errno);
        }
        const std::span<const std::byte> frame(buf.data(), static_cast<std::size_t>(n));
        const std::int64_t at = now_ns();
        if (i == 0 && dropper.drop(frame)) continue;
        if (cfg.windows_acks) {
          if (i == 0) {
            thinner.on_sender_frame(frame);
          } else if (thinner.on_receiver_frame(at, frame) == AckThinner::Verdict::hold) {
            continue;
          }
        }
        queue[i].push(at, frame);
      }
    }
    const std::int64_t now = now_ns();
    if (cfg.windows_acks) {
      thinner.release(now, [&](std::span<const std::byte> frame) { queue[1].push(now, frame); });
    }
    for (std::size_t i = 0; i < 2; ++i) {
      queue[i].release(now, [&](std::span<const std::byte> frame) {
        // A full egress queue (the shaper's drop-tail limit) drops the frame: that is the path's
        // loss, not the line's (ENOBUFS from the qdisc, packet(7)).
        (void)!::send(sock[1 - i].fd(), frame.data(), frame.size(), 0);
      });
    }
  }
  return {};
}

}  // namespace ackstall::lab
