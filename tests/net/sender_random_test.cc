// Randomized: >= 1,000,000 ChunkedSender::send calls against a fake OS that injects short
// writes, EAGAIN, EINTR (on every kind of call) and occasional ECONNRESET. The fake checks every
// accepted byte against the reference stream (nothing lost, duplicated or reordered), that each
// OS call carries exactly the chunk the policy asks for, and that the sender's counts match.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ackstall/core/io_cursor.h"
#include "ackstall/net/chunked_sender.h"
#include "stream_hash.h"

namespace ackstall::net {
namespace {

struct Rng {  // splitmix64: fast, deterministic
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  bool chance(unsigned per_million) { return next() % 1000000 < per_million; }
};

// Stops the test at the first broken invariant (one message, not a million).
[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

constexpr std::size_t kRefSize = std::size_t{1} << 20;  // reference stream: ref[i % kRefSize]

class RandomOs final : public SocketOps {
 public:
  RandomOs(Rng& rng, const std::vector<std::byte>& ref) : rng_(rng), ref_(ref) {}

  // Per connection.
  bool nonblocking = false;
  bool reset = false;
  int sndbuf_reported = 16384;
  std::int64_t mss = 1448;
  std::uint64_t delivered = 0;  // bytes accepted on this connection
  // Per request (set by the harness): what the policy must offer next.
  core::ChunkPolicy expected;
  int nodelay = 0;  // TCP_NODELAY as the sender left it (robust sets it for split sends)
  std::size_t request_remaining = 0;
  std::size_t request_len = 0;  // the current send()'s length (cygwin-patch: whole below S)
  int accepting_calls = 0;  // OS sends that accepted >= 1 byte during the current send()
  bool short_write = false;
  bool sent_after_short = false;  // an OS send accepted bytes after a short one (same send())
  std::uint64_t os_calls = 0, eintrs = 0, eagains = 0, shorts = 0, resets = 0;

  Result<std::size_t> send(NativeSocket, std::span<const core::ByteSlice> slices,
                              SendFlags) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    if (reset) return tl::unexpected(Error{"sendmsg", EPIPE, {}});
    // Plain checks in the hot path (gtest macros are slow unoptimised, under ASan).
    if (slices.size() > kMaxSlicesPerCall) fail("more than IOV_MAX slices");
    std::size_t offered = 0;
    for (const auto& s : slices) {
      if (s.size == 0) fail("zero-length slice reached the OS");
      offered += s.size;
    }
    if (offered != expected.next_chunk(request_remaining, request_len)) {
      fail("offered " + std::to_string(offered) + " bytes, policy says " +
           std::to_string(expected.next_chunk(request_remaining, request_len)) + " (remaining " +
           std::to_string(request_remaining) + ", sndbuf " +
           std::to_string(expected.params().sndbuf) + ", mss " +
           std::to_string(expected.params().mss) + ")");
    }
    if (rng_.chance(50)) {  // 1 in 20,000 calls
      reset = true;
      ++resets;
      return tl::unexpected(Error{"sendmsg", ECONNRESET, {}});
    }
    if (rng_.chance(120000)) {
      ++eagains;
      return tl::unexpected(Error{"sendmsg", EAGAIN, {}});
    }
    if (short_write) sent_after_short = true;
    std::size_t take = offered;
    if (offered > 1 && rng_.chance(150000)) {
      take = 1 + rng_.below(offered - 1);
      short_write = true;
      ++shorts;
    }
    // Verify the accepted prefix against the reference stream.
    std::size_t left = take;
    for (const auto& s : slices) {
      if (left == 0) break;
      const std::size_t k = std::min(left, s.size);
      verify(static_cast<const std::byte*>(s.data), k);
      left -= k;
    }
    request_remaining -= take;
    ++accepting_calls;
    return take;
  }
  Result<void> wait_writable(NativeSocket, int) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    return {};
  }
  Result<int> get_option(NativeSocket, SocketOption opt) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    if (opt == SocketOption::tcp_nodelay) return nodelay;
    return opt == SocketOption::send_buffer ? sndbuf_reported : static_cast<int>(mss);
  }
  Result<void> set_option(NativeSocket, SocketOption opt, int value) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    if (opt == SocketOption::tcp_nodelay) nodelay = value;
    if (opt == SocketOption::send_buffer) sndbuf_reported = 2 * value;
    return {};
  }
  Result<bool> is_nonblocking(NativeSocket) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    return nonblocking;
  }
  Result<TcpInfo> tcp_info(NativeSocket) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    return TcpInfo{mss, false};
  }
  Result<InterfaceMtu> interface_mtu(NativeSocket) override {
    return InterfaceMtu{"fake0", 1500};
  }
  Result<SocketKind> socket_kind(NativeSocket) override {
    if (auto e = interrupt()) return tl::unexpected(*e);
    return SocketKind{true, true};
  }
  bool send_buffer_reported_doubled() const noexcept override { return true; }

 private:
  std::optional<Error> interrupt() {
    ++os_calls;
    if (rng_.chance(50000)) {
      ++eintrs;
      return Error{"fake", EINTR, {}};
    }
    return std::nullopt;
  }
  void verify(const std::byte* p, std::size_t n) {
    while (n > 0) {
      const std::size_t at = delivered % kRefSize;
      const std::size_t k = std::min(n, kRefSize - at);
      if (std::memcmp(p, ref_.data() + at, k) != 0) {
        fail("stream corrupted at byte " + std::to_string(delivered));
      }
      p += k;
      n -= k;
      delivered += k;
    }
  }
  Rng& rng_;
  const std::vector<std::byte>& ref_;
};


// The application: writes the reference stream in random requests with random layouts.
void million_operations();

TEST(SenderRandom, MillionOperationsByteExact) {
  try {
    million_operations();
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
}

void million_operations() {
  Rng rng{0xACC57A11};
  std::vector<std::byte> ref(kRefSize);
  for (auto& b : ref) b = static_cast<std::byte>(rng.next());
  std::vector<std::byte> arena(256 * 1024);
  RandomOs os(rng, ref);

  constexpr std::uint64_t kOperations = 1'000'000;
  std::uint64_t sends = 0, bytes_total = 0, would_blocks = 0, connections = 0, errors = 0;
  const auto t0 = std::chrono::steady_clock::now();

  while (sends < kOperations) {
    // A new connection.
    ++connections;
    os.reset = false;
    os.delivered = 0;
    os.nonblocking = rng.chance(500000);
    // Small MSS and SO_SNDBUF (in proportion to real ones) keep the bytes per operation low,
    // so a million operations stay fast under ASan while every policy branch is hit.
    os.mss = static_cast<std::int64_t>(40 + rng.below(700));
    os.sndbuf_reported = static_cast<int>(2 * (64 + rng.below(6000)));
    // Every policy, auto included (a plain send here: Linux charges no per-send quota).
    const auto kind = core::kPolicyKinds[rng.below(std::size(core::kPolicyKinds))];
    os.nodelay = 0;
    ChunkedSender sender(os, 7, {kind, 0});
    bool sndbuf_set = false;  // SO_SNDBUF counts as set once the application sets it (cygwin-patch)
    auto track = [&] {
      core::SocketParams p{os.sndbuf_reported / 2, os.mss, true, kKernelChargesPerSend, false};
      p.sndbuf_set = sndbuf_set;
      os.expected = core::ChunkPolicy(kind, p);
    };
    track();
    std::uint64_t app_pos = 0;  // bytes the sender reported accepted on this connection
    bool alive = true;
    while (alive && sends < kOperations) {
      if (rng.chance(2000)) {  // the application changes SO_SNDBUF now and then
        auto r = sender.set_option(SocketOption::send_buffer,
                                   static_cast<int>(64 + rng.below(6000)));
        ASSERT_TRUE(r);
        sndbuf_set = true;
        track();
      }
      // One request: length, then a random layout with zero-length slices.
      const unsigned pick = static_cast<unsigned>(rng.below(100));
      const std::size_t len = pick < 50 ? rng.below(129)
                              : pick < 85 ? 128 + rng.below(1921)
                                          : 2048 + rng.below(6145);
      std::array<core::ByteSlice, 12> slices{};
      const std::size_t nslices = 1 + rng.below(slices.size());
      std::size_t cut[12];
      for (std::size_t i = 0; i + 1 < nslices; ++i) cut[i] = rng.below(len + 1);
      std::sort(cut, cut + nslices - 1);
      // Place slices back to front in the arena, with gaps, so memory order != stream order.
      std::size_t place = 0;
      std::size_t from = 0;
      for (std::size_t i = 0; i < nslices; ++i) {
        const std::size_t to = i + 1 < nslices ? cut[i] : len;
        const std::size_t n = to - from;
        std::byte* dst = arena.data() + arena.size() - place - n;
        testing::copy_from_ring(ref, app_pos + from, dst, n);
        slices[i] = {dst, n};
        place += n + rng.below(64);
        from = to;
      }
      // Send it all, the way an application must: loop on short writes and would-block.
      std::size_t done = 0;
      while (done < len) {
        // The slices still to send: the cursor, advanced past the `done` bytes already taken.
        std::array<core::ByteSlice, 12> rest{};
        core::IoCursor cursor({slices.data(), nslices});
        cursor.consume(done);
        const std::size_t nrest = cursor.prepare(len - done, rest);
        const bool dont_wait = !os.nonblocking && rng.chance(100000);
        const bool nb = os.nonblocking || dont_wait;
        os.request_remaining = os.request_len = len - done;
        os.accepting_calls = 0;
        os.short_write = false;
        os.sent_after_short = false;
        const std::size_t chunk = os.expected.next_chunk(len - done);
        auto r = sender.send({rest.data(), nrest}, dont_wait ? SendFlags::dont_wait
                                                             : SendFlags::none);
        ++sends;
        if (!r) {
          if (r.error().code != ECONNRESET && r.error().code != EPIPE) fail(r.error().message());
          ++errors;
          alive = false;
          break;
        }
        if (os.delivered != app_pos + r->bytes) fail("sender count != bytes the OS took");
        if (r->would_block) {
          if (!nb || r->bytes != 0) fail("would-block on a blocking send, or with bytes");
          ++would_blocks;
          continue;
        }
        if (nb) {
          if (os.accepting_calls > 1 || r->bytes > chunk) fail("nonblocking sent > 1 chunk");
        } else if (!os.reset) {
          if (r->bytes != len - done && !os.short_write) {
            fail("blocking send stopped early without a short write");
          }
          if (os.sent_after_short) fail("blocking send went on after a short write");
        }
        app_pos += r->bytes;
        done += r->bytes;
        bytes_total += r->bytes;
        // TCP_NODELAY only for the span of a split send: off again once the request is out.
        if (done == len && os.nodelay != 0) fail("TCP_NODELAY left on after a whole request");
      }
      // A reset the sender deferred behind a partial count surfaces on the next send.
      if (alive && os.reset) {
        std::byte b{};
        const core::ByteSlice one{&b, 1};
        os.request_remaining = os.request_len = 1;
        auto r = sender.send({&one, 1});
        ++sends;
        ASSERT_FALSE(r);
        ++errors;
        alive = false;
      }
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::testing::Test::RecordProperty("sends", static_cast<int>(sends));
  std::printf("%llu sends, %llu OS calls, %.1f MB, %llu connections, %llu EINTR, %llu EAGAIN, "
              "%llu short, %llu resets, %llu would-block, %llu errors, %.2f s\n",
              static_cast<unsigned long long>(sends), static_cast<unsigned long long>(os.os_calls),
              static_cast<double>(bytes_total) / 1e6, static_cast<unsigned long long>(connections),
              static_cast<unsigned long long>(os.eintrs),
              static_cast<unsigned long long>(os.eagains),
              static_cast<unsigned long long>(os.shorts),
              static_cast<unsigned long long>(os.resets),
              static_cast<unsigned long long>(would_blocks),
              static_cast<unsigned long long>(errors), secs);
  EXPECT_GE(sends, kOperations);
  EXPECT_GT(os.resets, 10u);
  EXPECT_GT(os.shorts, 1000u);
  EXPECT_GT(os.eintrs, 1000u);
}

}  // namespace
}  // namespace ackstall::net
