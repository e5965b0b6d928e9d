// Real sockets: a loopback TCP transfer through ChunkedSender with random write sizes and
// random iovec layouts (incl. zero-length slices), blocking and nonblocking, verified by a hash
// of the stream on both ends.
//
// Size: 1 GiB per mode in every build (ASan/UBSan included: ~2.6 s per mode measured). The
// compile definition ACKSTALL_LOOPBACK_BYTES changes the default; the environment variable of
// the same name overrides both (e.g. to shorten a debugging loop).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ackstall/core/io_cursor.h"
#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/tcp_socket.h"
#include "stream_hash.h"

#ifndef ACKSTALL_LOOPBACK_BYTES
#define ACKSTALL_LOOPBACK_BYTES (std::uint64_t{1} << 30)
#endif

namespace ackstall::net {
namespace {

using testing::StreamHash;

std::uint64_t transfer_bytes() {
  if (const char* env = std::getenv("ACKSTALL_LOOPBACK_BYTES")) return std::stoull(env);
  return ACKSTALL_LOOPBACK_BYTES;
}

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

struct Config {
  bool nonblocking;
  SenderOptions options;
  int sndbuf;  // set through the sender's setsockopt wrapper
};

void transfer(const Config& cfg) {
  const std::uint64_t total = transfer_bytes();
  auto listener = listen_tcp({"127.0.0.1", 0});
  ASSERT_TRUE(listener) << listener.error().message();
  auto client = connect_tcp({"127.0.0.1", listener->port}, std::chrono::seconds(5));
  ASSERT_TRUE(client) << client.error().message();
  auto server = accept_tcp(listener->socket);
  ASSERT_TRUE(server) << server.error().message();

  StreamHash received;
  std::string receive_error;
  std::thread receiver([&] {
    std::vector<std::byte> buf(256 * 1024);
    for (;;) {
      auto r = recv_some(*server, buf);
      if (!r) {
        receive_error = r.error().message();
        return;
      }
      if (r->eof) return;
      received.feed(buf.data(), r->bytes);
    }
  });
  // On an early ASSERT return: close the client so the receiver sees EOF, then join it.
  struct JoinOnExit {
    std::thread& t;
    TcpSocket& c;
    ~JoinOnExit() {
      if (t.joinable()) {
        c.close();
        t.join();
      }
    }
  } join_on_exit{receiver, *client};

  constexpr std::size_t kRef = (std::size_t{4} << 20) + 13;  // stream byte i = ref[i % kRef]
  Rng rng{cfg.nonblocking ? 0xB10Cull : 0xB10C2ull};
  std::vector<std::byte> ref(kRef);
  for (auto& b : ref) b = static_cast<std::byte>(rng.next());
  std::vector<std::byte> arena(2 * 1024 * 1024);

  if (cfg.nonblocking) {
    ASSERT_TRUE(set_nonblocking(*client, true));
  }
  ChunkedSender sender(system_socket_ops(), client->native(), cfg.options);
  ASSERT_TRUE(sender.set_option(SocketOption::send_buffer, cfg.sndbuf));
  Syscalls calls(system_socket_ops());

  StreamHash sent;
  std::uint64_t pos = 0, sends = 0, would_blocks = 0, writes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (pos < total) {
    // A write: mostly large, some small; random layout of up to 64 slices.
    const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(
        total - pos, rng.below(10) < 3 ? 1 + rng.below(4096) : 1 + rng.below(512 * 1024)));
    std::array<core::ByteSlice, 64> slices{};
    const std::size_t n = 1 + rng.below(slices.size());
    std::array<std::size_t, 64> cut{};
    for (std::size_t i = 0; i + 1 < n; ++i) cut[i] = rng.below(len + 1);
    std::sort(cut.begin(), cut.begin() + static_cast<std::ptrdiff_t>(n - 1));
    std::size_t from = 0, place = 0;
    for (std::size_t i = 0; i < n; ++i) {  // back to front in the arena, with gaps
      const std::size_t to = i + 1 < n ? cut[i] : len;
      const std::size_t k = to - from;
      std::byte* dst = arena.data() + arena.size() - place - k;
      testing::copy_from_ring(ref, pos + from, dst, k);
      slices[i] = {dst, k};
      place += k + rng.below(64);
      from = to;
    }
    ++writes;
    std::size_t done = 0;
    while (done < len) {
      // The slices still to send: the cursor, advanced past the `done` bytes already taken.
      std::array<core::ByteSlice, 64> rest{};
      core::IoCursor cursor({slices.data(), n});
      cursor.consume(done);
      const std::size_t nrest = cursor.prepare(len - done, rest);
      auto r = sender.send({rest.data(), nrest});
      ++sends;
      ASSERT_TRUE(r) << r.error().message();
      if (r->would_block) {
        ++would_blocks;
        ASSERT_TRUE(calls.wait_writable(client->native(), 10000));
        continue;
      }
      // Hash what the sender says the kernel took, from the reference stream.
      for (std::size_t left = r->bytes; left > 0;) {
        const std::size_t at = static_cast<std::size_t>((pos + done) % kRef);
        const std::size_t c = std::min(left, kRef - at);
        sent.feed(ref.data() + at, c);
        left -= c;
        done += c;
      }
    }
    pos += len;
  }
  ASSERT_TRUE(shutdown_send(*client));
  receiver.join();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %llu bytes in %llu writes, %llu sends, %llu would-block, %.2f s, %.0f MB/s\n",
              cfg.nonblocking ? "nonblocking" : "blocking", static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(writes), static_cast<unsigned long long>(sends),
              static_cast<unsigned long long>(would_blocks), secs,
              static_cast<double>(total) / secs / 1e6);
  EXPECT_TRUE(receive_error.empty()) << receive_error;
  EXPECT_EQ(sent.bytes(), total);
  EXPECT_EQ(received.bytes(), total);
  EXPECT_EQ(received.digest(), sent.digest());
  if (cfg.nonblocking) {
    EXPECT_GT(sends, writes);  // short writes happened and were resumed
  }
}

TEST(LoopbackTransfer, Blocking) {
  transfer({false, {core::PolicyKind::seed, 0}, 256 * 1024});
}

TEST(LoopbackTransfer, Nonblocking) {
  transfer({true, {core::PolicyKind::seed, 1448}, 64 * 1024});
}

}  // namespace
}  // namespace ackstall::net
