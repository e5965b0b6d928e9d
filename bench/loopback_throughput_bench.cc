// Loopback TCP throughput: ChunkedSender vs a plain blocking send loop, same process, same
// connection, same sequence of write sizes and iovec layouts, measured back to back (order
// alternating per iteration) and reported as counters:
//   plain_MBps, chunked_MBps, ratio = chunked throughput / plain throughput (target >= 0.97).
// The plain loop is one sendmsg per write (through system_socket_ops().send, i.e. the same
// MSG_NOSIGNAL sendmsg), continued only after a short write.
// Args: {SO_SNDBUF set by the application, MSS for the policy (0 = measured), policy kind
// (core::PolicyKind: 0 none, 1 seed, 2 cygwin, 3 robust, 4 auto)}. Policy none is the A/A check of the harness: the sender's own
// overhead (wrapper, fcntl per send) with identical OS calls; it should read ~1.0.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "ackstall/net/chunked_sender.h"
#include "ackstall/net/tcp_socket.h"

namespace {

using namespace ackstall;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kBytesPerRound = std::size_t{128} << 20;

struct Write {
  std::size_t slices;
  std::array<core::ByteSlice, 8> slice;
};

// Random writes of 1 B .. 1 MiB in 1..8 slices, totalling kBytesPerRound.
std::vector<Write> make_writes(const std::vector<std::byte>& data) {
  std::uint64_t s = 0x5EED;
  auto next = [&s] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  std::vector<Write> writes;
  std::size_t total = 0;
  while (total < kBytesPerRound) {
    Write w{};
    const std::size_t len = std::min<std::size_t>(1 + next() % (1 << 20), kBytesPerRound - total);
    w.slices = 1 + next() % 8;
    std::size_t left = len;
    for (std::size_t i = 0; i < w.slices; ++i) {
      const std::size_t k = i + 1 == w.slices ? left : next() % (left + 1);
      w.slice[i] = {data.data() + next() % (data.size() - k), k};
      left -= k;
    }
    total += len;
    writes.push_back(w);
  }
  return writes;
}

void plain_round(net::SocketOps& os, net::NativeSocket s, const std::vector<Write>& writes) {
  for (const Write& w : writes) {
    core::IoCursor cursor({w.slice.data(), w.slices});
    std::array<core::ByteSlice, 8> rest{};
    while (!cursor.empty()) {
      const std::size_t n = cursor.prepare(cursor.remaining(), rest);
      auto r = os.send(s, {rest.data(), n}, net::SendFlags::none);
      if (!r) throw std::runtime_error(r.error().message());
      cursor.consume(*r);
    }
  }
}

void chunked_round(net::ChunkedSender& sender, const std::vector<Write>& writes) {
  for (const Write& w : writes) {
    std::span<const core::ByteSlice> all(w.slice.data(), w.slices);
    core::IoCursor cursor(all);
    std::array<core::ByteSlice, 8> rest{};
    while (!cursor.empty()) {
      const std::size_t n = cursor.prepare(cursor.remaining(), rest);
      auto r = sender.send({rest.data(), n});
      if (!r) throw std::runtime_error(r.error().message());
      cursor.consume(r->bytes);
    }
  }
}

void BM_LoopbackThroughput(benchmark::State& state) {
  const int sndbuf = static_cast<int>(state.range(0));
  const std::int64_t mss = state.range(1);
  const auto kind = static_cast<core::PolicyKind>(state.range(2));
  std::vector<std::byte> data(4 << 20);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 2654435761u >> 24);
  const auto writes = make_writes(data);

  auto listener = net::listen_tcp({"127.0.0.1", 0});
  auto client = net::connect_tcp({"127.0.0.1", listener->port}, std::chrono::seconds(5));
  auto server = net::accept_tcp(listener->socket);
  if (!listener || !client || !server) {
    state.SkipWithError("loopback setup failed");
    return;
  }
  std::thread drain([&] {
    std::vector<std::byte> buf(1 << 20);
    for (;;) {
      auto r = net::recv_some(*server, buf);
      if (!r || r->eof) return;
    }
  });
  net::SocketOps& os = net::system_socket_ops();
  net::ChunkedSender sender(os, client->native(), {kind, mss});
  (void)sender.set_option(net::SocketOption::send_buffer, sndbuf);
  const core::ChunkPolicy policy = *sender.policy();

  // Warm-up (untimed): connection autotuning, page faults, the drain thread's first wake-ups.
  plain_round(os, client->native(), writes);
  chunked_round(sender, writes);

  double plain_s = 0, chunked_s = 0;
  bool chunked_first = false;
  for (auto _ : state) {
    for (int half = 0; half < 2; ++half) {
      const bool chunked = (half == 0) == chunked_first;
      const auto t0 = Clock::now();
      if (chunked) {
        chunked_round(sender, writes);
      } else {
        plain_round(os, client->native(), writes);
      }
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      (chunked ? chunked_s : plain_s) += dt;
    }
    chunked_first = !chunked_first;
  }
  (void)net::shutdown_send(*client);
  drain.join();

  const double bytes = static_cast<double>(kBytesPerRound) * static_cast<double>(state.iterations());
  state.counters["plain_MBps"] = bytes / plain_s / 1e6;
  state.counters["chunked_MBps"] = bytes / chunked_s / 1e6;
  state.counters["ratio"] = plain_s / chunked_s;
  state.counters["base_chunk"] = static_cast<double>(policy.base_chunk());
  state.counters["mss"] = static_cast<double>(policy.params().mss);
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * bytes));
}
// {SO_SNDBUF, MSS, policy}: 256 KiB with the measured loopback MSS (seed, cygwin, and none as
// the A/A check); 64 KiB with a forced MSS of 1448 (the seed's Ethernet guess, which does not
// divide loopback's real MSS: every chunk ends in a short segment).
BENCHMARK(BM_LoopbackThroughput)
    ->ArgNames({"sndbuf", "mss", "policy"})
    ->Args({256 * 1024, 0, 0})
    ->Args({256 * 1024, 0, 1})
    ->Args({256 * 1024, 0, 2})
    ->Args({256 * 1024, 0, 3})
    ->Args({256 * 1024, 0, 4})  // auto, the library's default: a plain send on Linux
    ->Args({64 * 1024, 1448, 1})
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
