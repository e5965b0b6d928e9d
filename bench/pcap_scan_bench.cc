// pcap reader / decoder / stall scanner throughput on a large synthetic capture, and the same
// file through `tshark -r` for scale (docs/BENCHMARKS.md, "pcap").
//
// The capture (ACKSTALL_PCAP_BENCH_PACKETS packets, default 1,000,000; snaplen 128) is written
// once through pcap::Writer: a stop-and-wait transfer whose odd sends end in a 200 ms delayed ACK.
// After the Google Benchmark runs, main() times one `ackstall`-equivalent scan_file() and one
// `tshark -n -r FILE -T fields -e frame.len` (tshark's cheapest full pass; its TCP analysis is on
// by default) and prints the ratio.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ackstall/pcap/conversation.h"
#include "ackstall/pcap/file_reader.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/scan_file.h"
#include "ackstall/pcap/writer.h"

namespace {

using namespace ackstall::pcap;

std::int64_t packet_count() {
  const char* env = std::getenv("ACKSTALL_PCAP_BENCH_PACKETS");
  return env != nullptr ? std::atoll(env) : 1'000'000;
}

const std::filesystem::path& capture() {
  static const std::filesystem::path path = [] {
    auto p = std::filesystem::temp_directory_path() / "ackstall_pcap_bench.pcap";
    auto w = Writer::create(p);
    if (!w) std::abort();
    Conversation c;
    (void)w->write(c.syn(0));
    (void)w->write(c.syn_ack(100'000));
    (void)w->write(c.handshake_ack(200'000));
    std::int64_t t = 1'000'000, written = 3;
    for (int send = 0; written < packet_count(); ++send) {
      const int segments = send % 2 == 0 ? 11 : 10;  // odd sends stall, even ones do not
      for (int i = 0; i < segments; ++i) {
        (void)w->write(c.data(t, 1448, i == segments - 1));
        if (i % 2 == 1) (void)w->write(c.ack(t + 20'000, c.bytes_sent()));
        t += 123'000;
        written += 1 + i % 2;
      }
      if (segments % 2 == 1) {
        t += 200'000'000;
        (void)w->write(c.ack(t, c.bytes_sent()));
        ++written;
      }
      t += 50'000;
    }
    if (!w->flush()) std::abort();
    return p;
  }();
  return path;
}

void BM_ReadDecode(benchmark::State& state) {
  std::int64_t packets = 0, bytes = 0;
  for (auto _ : state) {
    auto r = FileReader::open(capture());
    while (true) {
      auto rec = r->next();
      if (!rec || !*rec) break;
      auto f = decode_frame(r->header().link, (*rec)->data, (*rec)->orig_len, (*rec)->time_ns);
      benchmark::DoNotOptimize(f);
      ++packets;
      bytes += static_cast<std::int64_t>((*rec)->data.size() + 16);
    }
  }
  state.SetItemsProcessed(packets);
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_ReadDecode)->Unit(benchmark::kMillisecond);

void BM_ScanFile(benchmark::State& state) {
  std::int64_t packets = 0;
  for (auto _ : state) {
    auto scan = scan_file(capture());
    if (!scan) std::abort();
    packets += static_cast<std::int64_t>(scan->records);
    benchmark::DoNotOptimize(scan);
  }
  state.SetItemsProcessed(packets);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(std::filesystem::file_size(capture())));
}
BENCHMARK(BM_ScanFile)->Unit(benchmark::kMillisecond);

double wall_seconds(auto&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void compare_with_tshark() {
  const std::string file = capture().string();
  double ours = 1e9;
  for (int i = 0; i < 3; ++i) {
    ours = std::min(ours, wall_seconds([&] {
      if (!scan_file(file)) std::abort();
    }));
  }
  if (std::system("tshark --version >/dev/null 2>&1") != 0) {
    std::printf("pcap: scan_file %.3f s; tshark not installed, no ratio\n", ours);
    return;
  }
  const std::string cmd = "tshark -n -r " + file + " -T fields -e frame.len >/dev/null 2>&1";
  const double theirs = wall_seconds([&] { (void)std::system(cmd.c_str()); });
  std::printf("pcap: %lld packets, %.1f MB: scan_file %.3f s, `tshark -n -r FILE -T fields -e "
              "frame.len` %.3f s: ratio %.1fx\n",
              static_cast<long long>(packet_count()),
              static_cast<double>(std::filesystem::file_size(file)) / 1e6, ours, theirs, theirs / ours);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  compare_with_tshark();
  std::filesystem::remove(capture());
  return 0;
}
