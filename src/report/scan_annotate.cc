#include "ackstall/report/scan_annotate.h"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "ackstall/core/limit_cause.h"
#include "ackstall/pcap/capture_source.h"
#include "ackstall/pcap/diagnosis.h"
#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/pcapng_writer.h"

namespace ackstall::report {
namespace {

void add(std::map<std::uint64_t, std::string>& notes, std::uint64_t frame, const std::string& text) {
  if (frame == 0) return;
  std::string& n = notes[frame];
  n += (n.empty() ? "" : "; ") + text;
}

std::string verdict_line(const pcap::DirectionReport& d) {
  const pcap::Diagnosis g = pcap::diagnose(d);
  std::string accounts;
  for (const auto& a : g.accounts) {
    if (a.share >= 0.005) accounts += fmt::format("{}{:.0f} % {}", accounts.empty() ? "" : ", ", 100 * a.share, core::to_string(a.cause));
  }
  return fmt::format("ackstall: {} -> {}: {:.3f} MiB/s; time: {}; {}{}", pcap::format_socket_addr(d.sender),
                     pcap::format_socket_addr(d.receiver), d.goodput_bytes_per_s / (1 << 20),
                     accounts.empty() ? "none" : accounts, g.mechanism,
                     g.fixes.empty() ? "" : " Fix 1: " + g.fixes.front());
}

}  // namespace

core::Result<std::uint64_t> annotate_capture(const std::string& file, const pcap::FileScan& scan,
                                             const std::string& out_path) {
  std::map<std::uint64_t, std::string> notes;
  struct Direction {
    const pcap::DirectionReport* d;
    bool done = false;
  };
  std::vector<Direction> dirs;
  for (const auto& f : scan.flows) {
    for (const auto& d : f.directions) {
      dirs.push_back({&d});
      std::size_t i = 0;
      for (const pcap::Stall& s : d.stalls) {
        ++i;
        const std::string what = fmt::format("stall #{} of {} -> {} ({}, {:.1f} ms)", i, pcap::format_socket_addr(d.sender),
                                             pcap::format_socket_addr(d.receiver), pcap::to_string(s.kind),
                                             static_cast<double>(s.duration_ns()) / 1e6);
        add(notes, s.segment_frame, fmt::format("ackstall: {}: this segment waited; frame {} released it", what, s.release_frame));
        add(notes, s.release_frame, fmt::format("ackstall: {}: released here (frame {} waited)", what, s.segment_frame));
      }
    }
  }
  auto source = pcap::CaptureSource::open(file, "");
  if (!source) return tl::unexpected(source.error());
  auto out = pcap::PcapngWriter::create(out_path, source->link());
  if (!out) return tl::unexpected(out.error());
  std::uint64_t commented = 0;
  for (;;) {
    auto rec = source->next();
    if (!rec) return tl::unexpected(rec.error());
    if (!*rec) break;
    const pcap::Record& r = **rec;
    std::string comment;
    if (auto it = notes.find(r.number); it != notes.end()) comment = it->second;
    if (auto frame = pcap::decode_frame(source->link(), r.data, r.orig_len, r.time_ns);
        frame && frame->packet.payload_len > 0) {
      for (Direction& dir : dirs) {
        if (!dir.done && frame->src == dir.d->sender && frame->dst == dir.d->receiver) {
          dir.done = true;
          comment = verdict_line(*dir.d) + (comment.empty() ? "" : "; " + comment);
        }
      }
    }
    if (!comment.empty()) ++commented;
    if (auto ok = out->write(r, comment); !ok) return tl::unexpected(ok.error());
  }
  if (auto ok = out->close(); !ok) return tl::unexpected(ok.error());
  return commented;
}

}  // namespace ackstall::report
