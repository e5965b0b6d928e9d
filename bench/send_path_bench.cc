// ns per application send on the CPU side of the send path, for typical layouts:
//   BM_PolicyCursor  — core only: ChunkPolicy::next_chunk + IoCursor::prepare/consume per chunk.
//   BM_SenderNullOs  — ChunkedSender end to end over a SocketOps that accepts everything at
//                      once (adds the Syscalls wrapper, the is_nonblocking query, virtual calls).
// Policy: seed, SO_SNDBUF 8192 (the seed's Winsock default), MSS 1448 -> chunks 5792 + 2400.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <vector>

#include "ackstall/core/chunk_policy.h"
#include "ackstall/core/io_cursor.h"
#include "ackstall/net/chunked_sender.h"

namespace {

using ackstall::core::ByteSlice;

std::vector<std::byte> g_data(64 * 1024);

// Layouts: 0 = 1 x 8192; 1 = 16 x 512; 2 = 3 slices incl. tiny ones (5 + 8182 + 5).
std::vector<ByteSlice> layout(int which) {
  const std::byte* p = g_data.data();
  switch (which) {
    case 0: return {{p, 8192}};
    case 1: {
      std::vector<ByteSlice> v;
      for (int i = 0; i < 16; ++i) v.push_back({p + 600 * i, 512});
      return v;
    }
    default: return {{p, 5}, {p + 100, 8182}, {p + 9000, 5}};
  }
}
const char* layout_name(int which) {
  return which == 0 ? "1x8192" : which == 1 ? "16x512" : "5+8182+5";
}

void BM_PolicyCursor(benchmark::State& state) {
  const auto slices = layout(static_cast<int>(state.range(0)));
  const ackstall::core::ChunkPolicy policy(ackstall::core::PolicyKind::seed, {8192, 1448, true});
  std::array<ByteSlice, 64> out{};
  for (auto _ : state) {
    ackstall::core::IoCursor cursor(slices);
    while (!cursor.empty()) {
      const std::size_t chunk = policy.next_chunk(cursor.remaining());
      const std::size_t n = cursor.prepare(chunk, out);
      benchmark::DoNotOptimize(out.data());
      std::size_t bytes = 0;
      for (std::size_t i = 0; i < n; ++i) bytes += out[i].size;
      cursor.consume(bytes);
    }
    benchmark::ClobberMemory();
  }
  state.SetLabel(layout_name(static_cast<int>(state.range(0))));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_PolicyCursor)->DenseRange(0, 2);

class NullOs final : public ackstall::net::SocketOps {
 public:
  ackstall::net::Result<std::size_t> send(ackstall::net::NativeSocket,
                                             std::span<const ByteSlice> slices,
                                             ackstall::net::SendFlags) override {
    std::size_t n = 0;
    for (const auto& s : slices) n += s.size;
    benchmark::DoNotOptimize(n);
    return n;
  }
  ackstall::net::Result<void> wait_writable(ackstall::net::NativeSocket, int) override {
    return {};
  }
  ackstall::net::Result<int> get_option(ackstall::net::NativeSocket,
                                           ackstall::net::SocketOption opt) override {
    return opt == ackstall::net::SocketOption::send_buffer ? 16384 : 1448;
  }
  ackstall::net::Result<void> set_option(ackstall::net::NativeSocket,
                                            ackstall::net::SocketOption, int) override {
    return {};
  }
  ackstall::net::Result<bool> is_nonblocking(ackstall::net::NativeSocket) override {
    return false;
  }
  ackstall::net::Result<ackstall::net::TcpInfo> tcp_info(ackstall::net::NativeSocket) override {
    return ackstall::net::TcpInfo{1448, true};
  }
  ackstall::net::Result<ackstall::net::InterfaceMtu> interface_mtu(
      ackstall::net::NativeSocket) override {
    return ackstall::net::InterfaceMtu{"null0", 1500};
  }
  ackstall::net::Result<ackstall::net::SocketKind> socket_kind(
      ackstall::net::NativeSocket) override {
    return ackstall::net::SocketKind{true, true};
  }
  bool send_buffer_reported_doubled() const noexcept override { return true; }
};

void BM_SenderNullOs(benchmark::State& state) {
  const auto slices = layout(static_cast<int>(state.range(0)));
  NullOs os;
  // range(1): core::PolicyKind (1 seed: two chunks per 8192-byte send; 4 auto: a plain send here).
  const auto kind = static_cast<ackstall::core::PolicyKind>(state.range(1));
  ackstall::net::ChunkedSender sender(os, 0, {kind, 0});
  for (auto _ : state) {
    auto r = sender.send(slices);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(layout_name(static_cast<int>(state.range(0)))) + " " +
                 std::string(ackstall::core::to_string(kind)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_SenderNullOs)->ArgsProduct({{0, 1, 2}, {1, 4}});

}  // namespace
