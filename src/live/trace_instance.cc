#include "ackstall/live/trace_instance.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace ackstall::live {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

core::Result<void> write_text(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return core::os_failure("open", errno, path + ": " + core::errno_text(errno));
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (n < 0) return core::os_failure("write", err, path + " <- '" + text + "': " + core::errno_text(err));
  return {};
}

bool is_tracefs(const std::string& dir) { return fs::exists(dir + "/instances"); }

// "sport == 5001 || dport == 5001 || ...": the kernel's event filter (Documentation/trace/events.rst §5).
std::string port_filter(const std::vector<std::uint16_t>& ports) {
  std::string f;
  for (const std::uint16_t p : ports) {
    f += (f.empty() ? "" : " || ") + std::string("sport == ") + std::to_string(p) + " || dport == " + std::to_string(p);
  }
  return f;
}

}  // namespace

core::Result<std::string> tracefs_root(const std::string& at) {
  if (!at.empty()) {
    if (is_tracefs(at)) return at;
    return core::fail("no tracefs at " + at + " (no " + at + "/instances)");
  }
  for (const char* d : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    if (is_tracefs(d)) return std::string(d);
  }
  if (::geteuid() != 0) return core::fail("root is needed: tracefs is not mounted and only root can mount it");
  if (::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) {
    const int err = errno;
    return core::fail(std::string("cannot mount tracefs on /sys/kernel/tracing: ") + core::errno_text(err) +
                      (err == ENODEV ? " (this kernel has no tracefs)" : ""));
  }
  return std::string("/sys/kernel/tracing");
}

std::vector<std::string> remove_stale_instances(const std::string& root) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root + "/instances", ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kInstancePrefix)) continue;
    const std::string pid_text = name.substr(kInstancePrefix.size());
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;  // its run is alive
    if (::rmdir(entry.path().c_str()) == 0) removed.push_back(name);
  }
  return removed;
}

core::Result<TraceInstance> TraceInstance::create(const std::vector<std::uint16_t>& ports,
                                                  std::vector<std::string>& notes, const std::string& tracefs,
                                                  std::size_t buffer_kb) {
  auto root = tracefs_root(tracefs);
  if (!root) return tl::unexpected(root.error());
  if (::access((*root + "/instances").c_str(), W_OK) != 0) {
    return core::fail("root is needed: " + *root + "/instances is not writable");
  }
  for (const std::string& s : remove_stale_instances(*root)) {
    notes.push_back("removed the tracefs instance " + s + " of a run that was killed");
  }
  std::vector<EventFormat> formats;
  for (const std::string_view ev : kTraceEvents) {
    const std::string text = read_text(*root + "/events/" + std::string(ev) + "/format");
    if (text.empty()) continue;  // the schema names it missing
    auto f = parse_event_format(text, ev);
    if (!f) return tl::unexpected(f.error());
    formats.push_back(std::move(*f));
  }
  auto header = parse_event_format(read_text(*root + "/events/header_page"), "header_page");
  if (!header) return tl::unexpected(header.error());
  auto layout = page_layout(*header);
  if (!layout) return tl::unexpected(layout.error());
  TraceInstance t;
  t.schema_ = EventSchema::make(formats);
  for (const std::string& m : t.schema_.missing()) notes.push_back(m);
  t.layout_ = *layout;
  if (const FieldFormat* d = header->field("data")) t.page_size_ = d->offset + d->size;
  t.path_ = *root + "/instances/" + std::string(kInstancePrefix) + std::to_string(::getpid());
  if (::mkdir(t.path_.c_str(), 0700) != 0 && errno != EEXIST) {
    const int err = errno;
    t.path_.clear();
    return core::os_failure("mkdir", err, "tracefs instance: " + core::errno_text(err));
  }
  // The instance's clock is CLOCK_MONOTONIC ("mono"), as the sampler's.
  const std::string filter = port_filter(ports);
  const std::pair<std::string, std::string> settings[] = {
      {"buffer_size_kb", std::to_string(buffer_kb)}, {"trace_clock", "mono"}};
  for (const auto& [file, value] : settings) {
    if (auto ok = write_text(t.path_ + "/" + file, value); !ok) return tl::unexpected(ok.error());
  }
  for (const std::string_view ev : kTraceEvents) {
    const std::string dir = t.path_ + "/events/" + std::string(ev);
    if (!fs::exists(dir + "/enable")) continue;
    std::string f = filter;
    if (ev == "sock/sock_send_length") f = "protocol == 6";  // no ports here: TCP only, by socket in user space
    if (ev == "sock/inet_sock_set_state" && !f.empty()) f = "protocol == 6 && (" + f + ")";
    if (!f.empty()) {
      if (auto ok = write_text(dir + "/filter", f); !ok) return tl::unexpected(ok.error());
    }
    if (auto ok = write_text(dir + "/enable", "1"); !ok) return tl::unexpected(ok.error());
  }
  for (const auto& entry : fs::directory_iterator(t.path_ + "/per_cpu")) {
    const int fd = ::open((entry.path() / "trace_pipe_raw").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return core::os_failure("open", errno, entry.path().string() + "/trace_pipe_raw");
    t.pipes_.push_back(fd);
  }
  return t;
}

TraceInstance::TraceInstance(TraceInstance&& o) noexcept
    : path_(std::exchange(o.path_, {})), schema_(std::move(o.schema_)), layout_(o.layout_), page_size_(o.page_size_),
      pipes_(std::exchange(o.pipes_, {})), held_(std::move(o.held_)), records_(o.records_), missed_pages_(o.missed_pages_),
      released_until_ns_(o.released_until_ns_) {}

TraceInstance::~TraceInstance() {
  for (const int fd : pipes_) ::close(fd);
  if (path_.empty()) return;
  (void)write_text(path_ + "/events/enable", "0");
  ::rmdir(path_.c_str());
}

core::Result<std::vector<TraceEvent>> TraceInstance::drain() {
  std::vector<TraceEvent> out;
  out.swap(held_);
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const std::int64_t release_before = std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec - kHoldBackNs;
  std::vector<std::byte> page(page_size_);
  for (const int fd : pipes_) {
    for (;;) {
      const ssize_t n = ::read(fd, page.data(), page.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EAGAIN: this CPU's buffer is empty
      auto stats = decode_page(std::span(page).first(static_cast<std::size_t>(n)), layout_,
                               [&](std::uint64_t ts, std::span<const std::byte> rec) {
                                 if (auto e = schema_.decode(ts, rec)) out.push_back(std::move(*e));
                               });
      if (!stats) return tl::unexpected(stats.error());
      records_ += stats->records;
      missed_pages_ += stats->missed_events ? 1 : 0;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.ts_ns < b.ts_ns; });
  const auto later = std::find_if(out.begin(), out.end(), [&](const TraceEvent& e) {
    return static_cast<std::int64_t>(e.ts_ns) >= release_before;
  });
  held_.assign(std::make_move_iterator(later), std::make_move_iterator(out.end()));
  out.erase(later, out.end());
  released_until_ns_ = release_before;
  return out;
}

TraceCounts TraceInstance::counts() const {
  TraceCounts c{records_, 0, 0, missed_pages_};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path_ + "/per_cpu", ec)) {
    std::istringstream stats(read_text((entry.path() / "stats").string()));
    for (std::string line; std::getline(stats, line);) {
      if (line.starts_with("overrun: ")) c.overrun += std::stoull(line.substr(9));
      if (line.starts_with("dropped events: ")) c.dropped += std::stoull(line.substr(16));
    }
  }
  return c;
}

}  // namespace ackstall::live
