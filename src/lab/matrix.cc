#include "ackstall/lab/matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "ackstall/lab/netns.h"

namespace ackstall::lab {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double min_of(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

double max_of(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

double fraction_of(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

core::Result<void> write_matrix_json(const std::string& path, const MatrixSetup& setup,
                                     const std::vector<MatrixCell>& cells) {
  const double line = setup.line_mb_s;
  nlohmann::json j = {{"config",
                       {{"ack_mode", setup.ack_mode},
                        {"quota", setup.quota},
                        {"timestamps", setup.timestamps},
                        {"rate", setup.rate},
                        {"runs", setup.runs},
                        {"realtime", setup.realtime},
                        {"seconds", setup.seconds}}},
                      {"line_rate_mb_s", line},
                      {"rows", nlohmann::json::array()}};
  for (const auto& r : cells) {
    j["rows"].push_back({{"len", r.len},
                         {"case", r.kase},
                         {"mb_s", r.mbps},
                         {"median_mb_s", median(r.mbps)},
                         {"fraction_of_line", fraction_of(median(r.mbps), line)},
                         {"stalls", r.stalls},
                         {"stalls_per_s", r.stalls_per_s},
                         {"median_stalls_per_s", median(r.stalls_per_s)},
                         {"median_wait_ms_per_s", median(r.waited_ms_per_s)}});
    if (!r.capture.empty()) j["rows"].back()["capture"] = r.capture;
  }
  std::ofstream f(path);
  f << j.dump(2) << '\n';
  if (!f) return core::fail("lab matrix: cannot write " + path);
  return {};
}

core::Result<void> write_matrix_csv(const std::string& path, const MatrixSetup& setup,
                                    const std::vector<MatrixCell>& cells) {
  const double line = setup.line_mb_s;
  std::ofstream f(path);
  f << "len,case,median_mb_s,min_mb_s,max_mb_s,fraction_of_line,median_stalls_per_s,median_wait_ms_per_s,runs\n";
  for (const auto& r : cells) {
    f << fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.2f},{:.2f},{}\n", r.len, r.kase, median(r.mbps),
                     min_of(r.mbps), max_of(r.mbps), fraction_of(median(r.mbps), line),
                     median(r.stalls_per_s), median(r.waited_ms_per_s), r.mbps.size());
  }
  if (!f) return core::fail("lab matrix: cannot write " + path);
  return {};
}

core::Result<BackgroundCommand> start_cell_capture(const std::string& path) {
  auto cap = BackgroundCommand::start({"ip", "netns", "exec", kNsB, "dumpcap", "-q", "-i", kVethB, "-s", "128", "-w", path});
  if (!cap) return tl::unexpected(cap.error());
  for (int i = 0; i < 500; ++i) {  // 5 s
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) > 0 && !ec) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // its first block precedes the capture
      return cap;
    }
    if (!cap->running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return core::fail("dumpcap on " + std::string(kVethB) + " did not start writing " + path +
                    " within 5 s (is dumpcap installed, and may it write there?)");
}

}  // namespace ackstall::lab
