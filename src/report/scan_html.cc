#include "ackstall/report/scan_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>

#include "ackstall/core/goodput_text.h"
#include "ackstall/core/limit_cause.h"
#include "ackstall/core/plural.h"
#include "ackstall/report/scan_plot.h"
#include "ackstall/report/scan_report.h"

namespace ackstall::report {
namespace {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// One colour per cause, in core::kLimitCauses order (the palette of `scan --plot`'s bands:
// matplotlib's tab10, readable by the common colour-vision deficiencies).
constexpr std::array<std::string_view, 8> kCauseColour = {"#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                                         "#ff7f0e", "#7f7f7f", "#17becf", "#bcbd22"};
static_assert(kCauseColour.size() == core::kLimitCauses.size());

double secs(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

// The graph as inline SVG: sequence against time above, one lane per cause below. Series longer
// than the plot is wide in pixels are thinned to one point per pixel column (the last of each),
// and spans narrower than a tenth of a pixel are skipped: a page stays small however long the
// transfer.
std::string svg_of(const TimeSequence& ts) {
  constexpr double kW = 860, kH = 260, kLeft = 90, kLane = 12, kTop = 10;
  double t_end = 0, s_end = 1, s_begin = 0;  // s_begin < 0: a capture started mid-transfer
  for (const auto& p : ts.data) t_end = std::max(t_end, p.t), s_end = std::max(s_end, p.seq), s_begin = std::min(s_begin, p.seq);
  for (const auto& p : ts.acks) t_end = std::max(t_end, p.t), s_end = std::max(s_end, p.seq), s_begin = std::min(s_begin, p.seq);
  double t_begin = t_end;
  for (const auto& p : ts.data) t_begin = std::min(t_begin, p.t);
  for (const auto& p : ts.acks) t_begin = std::min(t_begin, p.t);
  if (t_end <= t_begin) t_end = t_begin + 1e-3;
  const double lanes_h = kLane * static_cast<double>(ts.lanes.size());
  const double height = kTop + kH + 24 + lanes_h + 8;
  const auto x = [&](double t) { return kLeft + (t - t_begin) / (t_end - t_begin) * kW; };
  // The offered window's edge may run far above the data: drawn clipped at the plot's top.
  const auto y = [&](double s) { return std::clamp(kTop + kH - (s - s_begin) / (s_end - s_begin) * kH, kTop, kTop + kH); };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "role=\"img\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#999\"/>\n",
      kLeft + kW + 10, height, kLeft + kW + 10, height, kLeft, kTop, kW, kH);
  const auto thin = [&](const std::vector<TimeSequence::Point>& v) {
    std::vector<TimeSequence::Point> kept;
    double last_px = -1;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double px = std::floor(x(v[i].t));
      if (!kept.empty() && px == last_px) kept.back() = v[i];
      else kept.push_back(v[i]);
      last_px = px;
    }
    return kept;
  };
  const auto steps = [&](const std::vector<TimeSequence::Point>& v, std::string_view colour, std::string_view title) {
    if (v.empty()) return;
    std::string pts;
    double prev_y = y(v.front().seq);
    for (const auto& p : thin(v)) {
      fmt::format_to(std::back_inserter(pts), "{:.1f},{:.1f} {:.1f},{:.1f} ", x(p.t), prev_y, x(p.t), y(p.seq));
      prev_y = y(p.seq);
    }
    fmt::format_to(std::back_inserter(out), "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"{}\"><title>{}</title></polyline>\n",
                   colour, pts, title);
  };
  steps(ts.window, "#9467bd", "ACK + offered window");
  steps(ts.acks, "#2ca02c", "cumulative ACK");
  std::string dots;
  for (const auto& p : thin(ts.data)) fmt::format_to(std::back_inserter(dots), "M{:.1f} {:.1f}h0.1", x(p.t), y(p.seq));
  fmt::format_to(std::back_inserter(out),
                 "<path d=\"{}\" stroke=\"#1f77b4\" stroke-width=\"3\" stroke-linecap=\"round\"><title>data segment (end "
                 "seq)</title></path>\n",
                 dots);
  // Axes' labels: the time span and the highest sequence number.
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{}\" y=\"{:.0f}\" font-size=\"11\">{:.3f} s</text><text x=\"{:.0f}\" y=\"{:.0f}\" "
                 "font-size=\"11\" text-anchor=\"end\">{:.3f} s</text><text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"11\" "
                 "text-anchor=\"end\">{:.0f} B</text><text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"11\" "
                 "text-anchor=\"end\">{:.0f}</text>\n",
                 kLeft, kTop + kH + 14, t_begin, kLeft + kW, kTop + kH + 14, t_end, kLeft - 4, kTop + 10, s_end, kLeft - 4,
                 kTop + kH, s_begin);
  const double lanes_top = kTop + kH + 22;
  for (std::size_t lane = 0; lane < ts.lanes.size(); ++lane) {
    const double ly = lanes_top + kLane * static_cast<double>(lane);
    fmt::format_to(std::back_inserter(out), "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"9\" text-anchor=\"end\">{}</text>\n",
                   kLeft - 4, ly + 9, escape(ts.lanes[lane]));
  }
  for (const auto& s : ts.stalls) {
    const double x0 = x(std::max(s.begin, t_begin)), x1 = x(std::min(s.end, t_end));
    if (x1 - x0 < 0.1 || s.lane >= ts.lanes.size()) continue;
    fmt::format_to(std::back_inserter(out), "<rect x=\"{:.1f}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\"/>\n", x0,
                   lanes_top + kLane * static_cast<double>(s.lane), x1 - x0, kLane - 2,
                   kCauseColour[s.lane % kCauseColour.size()]);
  }
  out += "</svg>\n";
  return out;
}

constexpr std::string_view kStyle = R"(body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-top:1px solid #ccc;padding-top:.8em}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #e4e4e4;text-align:right}
th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}td.l,th.l{text-align:left}tr.problem td{background:#fff3f0}
.facts td{text-align:left}.verdict{font-weight:600}code{background:#f4f4f4;padding:0 3px}
.swatch{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 .8em;vertical-align:middle})";

// Click a header to sort by it (numbers by data-v, else text); a second click reverses.
constexpr std::string_view kScript = R"(window.onerror=function(m){document.body.setAttribute('data-error',m)};
document.querySelectorAll('table.triage th').forEach(function(th,col){th.addEventListener('click',function(){
var tb=th.closest('table').tBodies[0],rows=Array.from(tb.rows),dir=th.dataset.dir==='1'?-1:1;th.dataset.dir=dir===1?'1':'0';
rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col],p=parseFloat(x.dataset.v),q=parseFloat(y.dataset.v);
return dir*(isNaN(p)||isNaN(q)?x.textContent.localeCompare(y.textContent):p-q)});rows.forEach(function(r){tb.appendChild(r)})})});
document.body.setAttribute('data-ready','1');document.body.setAttribute('data-ready-ms',Math.round(performance.now()));)";

}  // namespace

std::string render_html_report(const pcap::FileScan& scan, const pcap::Triage& t,
                               const std::vector<HtmlConnection>& connections, core::StallThreshold threshold) {
  std::string out;
  auto w = std::back_inserter(out);
  fmt::format_to(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ackstall: {}</title>\n<style>{}</style></head>\n<body>\n",
                 escape(scan.name), kStyle);
  fmt::format_to(w, "<h1>ackstall scan: {}</h1>\n<table class=\"facts\">\n", escape(scan.name));
  std::uint64_t skipped = 0;
  for (const auto& [reason, n] : scan.skipped) skipped += n;
  const auto fact = [&](std::string_view k, const std::string& v) {
    fmt::format_to(w, "<tr><td>{}</td><td>{}</td></tr>\n", k, escape(v));
  };
  fact("format", scan.stats ? "live capture" : scan.pcapng ? "pcapng" : "pcap");
  fact("records", fmt::format("{} ({} TCP segments; {} skipped{})", scan.records, scan.tcp_packets, skipped,
                              skipped > 0 ? ": " + skipped_summary(scan) : ""));
  fact("span", fmt::format("{:.3f} s", secs(scan.last_ns - scan.first_ns)));
  fact("connections", fmt::format("{} judged, {} with a problem; {} under {} data segments (not judged); {} without data",
                                  t.rows.size(), t.problems(), t.tiny, pcap::kTriageMinSegments, t.no_data));
  fact("capture drops", scan.capture_drops ? fmt::format("{} (pcapng statistics)", *scan.capture_drops)
                                           : std::string("none recorded"));
  if (scan.cut_short) fact("cut short", *scan.cut_short);
  fact("stall threshold", fmt::format("{} ms", core::stall_threshold_ms(threshold)));
  out += "</table>\n";

  out += "<h2>Triage: one row a connection, worst first</h2>\n<table class=\"triage\"><thead><tr><th>#</th><th class=\"l\">connection "
         "(data direction)</th><th>bytes</th><th>duration s</th><th>goodput</th><th class=\"l\">limited by</th><th "
         "class=\"l\">problem</th><th>time lost s</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const pcap::TriageRow& r = t.rows[i];
    const std::string name = pcap::format_socket_addr(r.judged().sender) + " -> " + pcap::format_socket_addr(r.judged().receiver);
    fmt::format_to(w,
                   "<tr{}><td data-v=\"{}\">{}</td><td class=\"l\">{}</td><td data-v=\"{}\">{}</td><td data-v=\"{:.6f}\">{:.3f}</td>"
                   "<td data-v=\"{:.0f}\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td data-v=\"{:.6f}\">{}</td></tr>\n",
                   r.problem() ? " class=\"problem\"" : "", i + 1, i + 1, escape(name), r.bytes, r.bytes, secs(r.duration_ns),
                   secs(r.duration_ns), r.goodput_bytes_per_s, core::format_goodput(r.goodput_bytes_per_s),
                   r.dominant ? core::to_string(*r.dominant) : "-", r.problem_cause ? core::to_string(*r.problem_cause) : "healthy",
                   secs(r.lost_ns), r.problem() ? fmt::format("{:.3f}", secs(r.lost_ns)) : "-");
  }
  out += "</tbody></table>\n";

  out += "<p>Bands under each graph: where the time went.";
  for (core::LimitCause c : core::kLimitCauses) {
    fmt::format_to(w, "<span class=\"swatch\" style=\"background:{}\"></span>{}", kCauseColour[static_cast<std::size_t>(c)],
                   core::to_string(c));
  }
  out += "</p>\n";
  for (const HtmlConnection& c : connections) {
    const pcap::TriageRow& r = *c.row;
    const pcap::Diagnosis g = pcap::diagnose(r.judged());
    fmt::format_to(w, "<h2>{} -&gt; {}</h2>\n<p>{} in {:.3f} s, {}.</p>\n<p class=\"verdict\">{}</p>\n",
                   escape(pcap::format_socket_addr(r.judged().sender)), escape(pcap::format_socket_addr(r.judged().receiver)),
                   core::plural(r.judged().bytes_acked, "byte"), secs(r.duration_ns), core::format_goodput(r.goodput_bytes_per_s),
                   escape(g.mechanism));
    out += svg_of(c.graph);
    if (!g.accounts.empty()) {
      out += "<p>Where the time went:</p><ul>\n";
      for (const auto& a : g.accounts) {
        fmt::format_to(w, "<li>{:.1f} % ({:.3f} s) {}</li>\n", 100 * a.share, secs(a.ns), escape(core::describe(a.cause)));
      }
      out += "</ul>\n";
    }
    const auto list = [&](std::string_view head, const std::vector<std::string>& items) {
      if (items.empty()) return;
      fmt::format_to(w, "<p>{}:</p><ul>\n", head);
      for (const auto& s : items) fmt::format_to(w, "<li>{}</li>\n", escape(s));
      out += "</ul>\n";
    };
    list("Capture warnings", g.capture_warnings);
    list("Evidence", g.evidence);
    list("Fixes, best first", g.fixes);
    list("Would not help", g.would_not_help);
  }
  if (connections.empty()) out += "<p>No connection has a problem.</p>\n";
  fmt::format_to(w, "<p><small>Written by <code>ackstall scan --report</code>; the rules behind each cause: docs/SCAN.md of "
                    "the ackstall sources.</small></p>\n<script>{}</script>\n</body></html>\n",
                 kScript);
  return out;
}

core::Result<std::size_t> write_html_report(const std::vector<std::string>& files, const std::string& bpf, const pcap::FileScan& scan,
                                            std::size_t top, bool all, core::StallThreshold threshold,
                                            const std::string& path) {
  const pcap::Triage t = pcap::triage(scan.flows);
  std::vector<HtmlConnection> shown;
  std::vector<const pcap::DirectionReport*> directions;
  const std::size_t n = all ? t.rows.size() : std::min(top, t.rows.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!all && !t.rows[i].problem()) continue;
    shown.push_back({&t.rows[i], {}});
    directions.push_back(&t.rows[i].judged());
  }
  auto graphs = collect_time_sequences(files, bpf, scan, directions);
  if (!graphs) return tl::unexpected(graphs.error());
  for (std::size_t i = 0; i < shown.size(); ++i) shown[i].graph = std::move((*graphs)[i]);
  const std::string page = render_html_report(scan, t, shown, threshold);
  std::ofstream f(path, std::ios::binary);
  f << page;
  f.close();
  if (!f) return core::fail(fmt::format("cannot write {}", path));
  return page.size();
}

}  // namespace ackstall::report
