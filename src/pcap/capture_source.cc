#include "ackstall/pcap/capture_source.h"

#include "decompress.h"

#include <fmt/format.h>
#include <pcap/pcap.h>

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

namespace ackstall::pcap {

struct CaptureSource::Impl {
  std::unique_ptr<char[]> stdio_buffer;  // the FILE's buffer (libpcap reader): freed after pcap_close()
  std::optional<FileReader> reader;      // the project's reader (files, memory, stdin)
  pcap_t* handle = nullptr;              // libpcap: live, its own file reader, or a dead handle for --filter
  bpf_program program{};
  bool have_program = false;
  ~Impl() {
    if (have_program) pcap_freecode(&program);
    if (handle != nullptr) pcap_close(handle);
  }
  // Compiles `bpf` (nothing when empty) for `handle`'s link type into `program`: optimize=1,
  // netmask unknown, tcpdump's defaults for a savefile.
  Result<void> compile_filter(const std::string& bpf) {
    if (bpf.empty()) return {};
    if (pcap_compile(handle, &program, bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      return make_error(fmt::format("'{}': {}", bpf, pcap_geterr(handle)));
    }
    have_program = true;
    return {};
  }
};

namespace {

// A record's time in ns since the epoch; nullopt beyond what int64 ns holds (year 2262: a
// pcapng timestamp can be any 64-bit count of its units; found by fuzz_capture_source).
std::optional<std::int64_t> record_time_ns(const timeval& ts, bool nano) {
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
  if (ts.tv_sec < 0 || ts.tv_sec > kMaxSeconds || ts.tv_usec < 0) return std::nullopt;
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 +
         static_cast<std::int64_t>(ts.tv_usec) * (nano ? 1 : 1000);
}

Record record_of(std::uint64_t number, std::int64_t time_ns, const pcap_pkthdr& hdr, const u_char* data) {
  Record r;
  r.number = number;
  r.time_ns = time_ns;
  r.orig_len = hdr.len;
  r.data = {data, hdr.caplen};
  return r;
}

// The DLT_ value libpcap compiles a filter for (pcap/dlt.h; LINKTYPE_RAW 101 is DLT_RAW here).
int dlt_of(LinkType link) {
  switch (link) {
    case LinkType::null_loopback: return DLT_NULL;
    case LinkType::ethernet: return DLT_EN10MB;
    case LinkType::raw_ip: return DLT_RAW;
    case LinkType::linux_sll: return DLT_LINUX_SLL;
    case LinkType::linux_sll2: return DLT_LINUX_SLL2;
  }
  return DLT_EN10MB;
}

bool is_truncation(const char* message) {
  // libpcap's savefile readers (sf-pcap.c, sf-pcapng.c) say "truncated" for a short record.
  return std::strstr(message, "truncated") != nullptr;
}

}  // namespace

CaptureSource::CaptureSource(std::unique_ptr<Impl> impl, std::string name, LinkType link, bool pcapng)
    : impl_(std::move(impl)), name_(std::move(name)), link_(link), pcapng_(pcapng) {}
CaptureSource::CaptureSource(CaptureSource&&) noexcept = default;
CaptureSource& CaptureSource::operator=(CaptureSource&&) noexcept = default;
CaptureSource::~CaptureSource() = default;

bool CaptureSource::reads_once(const std::string& name) {
  if (name == "-") return true;
  struct stat st {};
  return ::stat(name.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

Result<CaptureSource> CaptureSource::open(const std::string& name, const std::string& bpf, Reader reader) {
  const bool once = reads_once(name);
  if (reader == Reader::own && once) {
    // A stream is opened once and its first bytes, read to tell whether it is compressed, are
    // handed on with it: opening it again would start where they left off.
    detail::FilePtr owned;
    std::FILE* file = stdin;
    if (name != "-") {
      owned.reset(std::fopen(name.c_str(), "rb"));
      if (!owned) return core::os_failure("", errno, fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
      file = owned.get();
    }
    // read(2) on the descriptor, not stdio: the reader sets the FILE's buffering, which must come
    // before any stdio read (C17 7.21.5.6).
    std::array<std::uint8_t, detail::kMagicBytes> head{};
    std::size_t got = 0;
    while (got < head.size()) {
      const ssize_t n = ::read(::fileno(file), head.data() + got, head.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return core::os_failure("", errno, fmt::format("{}: cannot read: {}", name, std::strerror(errno)));
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    const auto magic = std::span<const std::uint8_t>(head).first(got);
    const auto packing = detail::packing_of(magic);
    if (packing == detail::Packing::none) {
      auto r = FileReader::from_stream(owned ? owned.release() : file, name, magic);
      if (!r) return tl::unexpected(r.error());
      return with_reader(std::move(*r), bpf);
    }
    auto unpacked = detail::decompress(name, packing, magic, file);
    if (!unpacked) return tl::unexpected(unpacked.error());
    auto r = FileReader::from_stream(unpacked->release(), name);
    if (!r) return tl::unexpected(r.error());
    return with_reader(std::move(*r), bpf);
  }
  if (!once) {
    // gzip and xz captures are decompressed first (decompress.h), as tshark reads them.
    auto unpacked = detail::open_decompressed(name);
    if (!unpacked) return tl::unexpected(unpacked.error());
    if (*unpacked) {
      if (reader == Reader::own) {
        auto r = FileReader::from_stream(unpacked->release(), name);
        if (!r) return tl::unexpected(r.error());
        return with_reader(std::move(*r), bpf);
      }
      return open_file(unpacked->release(), name, bpf, nullptr);
    }
  }
  if (reader == Reader::own) {
    auto r = name == "-" ? FileReader::from_stream(stdin, name) : FileReader::open(name);
    if (!r) return tl::unexpected(r.error());
    return with_reader(std::move(*r), bpf);
  }
  std::FILE* file = name == "-" ? stdin : std::fopen(name.c_str(), "rb");
  if (file == nullptr) {
    return core::os_failure("", errno, fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
  }
  std::unique_ptr<char[]> buffer;
  if (file != stdin) {
    // glibc's setvbuf ignores the size unless it is given the buffer (it would use 4 KiB), and a
    // seek makes stdio track the position itself (else every ftell() below is an lseek call).
    constexpr std::size_t kBytes = std::size_t{1} << 20;
    buffer = std::make_unique_for_overwrite<char[]>(kBytes);
    std::setvbuf(file, buffer.get(), _IOFBF, kBytes);
    std::fseek(file, 0, SEEK_SET);
  }
  return open_file(file, name, bpf, std::move(buffer));
}

Result<CaptureSource> CaptureSource::open_memory(std::span<const std::uint8_t> bytes, const std::string& name,
                                                 const std::string& bpf, Reader reader) {
  if (reader == Reader::own) {
    auto r = FileReader::from_memory(bytes, name);
    if (!r) return tl::unexpected(r.error());
    return with_reader(std::move(*r), bpf);
  }
  if (bytes.empty()) return make_error(fmt::format("{}: not a pcap or pcapng capture (the file is empty)", name));
  std::FILE* file = ::fmemopen(const_cast<std::uint8_t*>(bytes.data()), bytes.size(), "rb");
  if (file == nullptr) {
    return core::os_failure("", errno, fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
  }
  return open_file(file, name, bpf);
}

Result<CaptureSource> CaptureSource::with_reader(FileReader reader, const std::string& bpf) {
  const FileHeader header = reader.header();
  auto impl = std::make_unique<Impl>();
  std::string name = reader.name();
  impl->reader.emplace(std::move(reader));
  if (!bpf.empty()) {
    // Compiled for the capture's link type on a dead handle, applied per record below.
    impl->handle = pcap_open_dead_with_tstamp_precision(dlt_of(header.link), 262144, PCAP_TSTAMP_PRECISION_NANO);
    if (impl->handle == nullptr) return make_error("pcap_open_dead failed");
    if (auto ok = impl->compile_filter(bpf); !ok) return tl::unexpected(ok.error());
  }
  return CaptureSource(std::move(impl), std::move(name), header.link, header.pcapng);
}

Result<CaptureSource> CaptureSource::open_file(std::FILE* file, const std::string& name, const std::string& bpf,
                                               std::unique_ptr<char[]> stdio_buffer) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  auto impl = std::make_unique<Impl>();
  impl->stdio_buffer = std::move(stdio_buffer);
  impl->handle = pcap_fopen_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (impl->handle == nullptr) {
    if (file != stdin) std::fclose(file);
    return make_error(fmt::format("{}: not a pcap or pcapng capture ({})", name, errbuf));
  }
  const int dlt = pcap_datalink(impl->handle);
  const auto link = link_type_from_pcap(static_cast<std::uint32_t>(dlt));
  if (!link) {
    const char* dlt_name = pcap_datalink_val_to_name(dlt);
    return make_error(fmt::format("{}: link type {} ({}) is not supported (Ethernet, Linux SLL/SLL2, "
                                  "raw IP, null loopback)", name, dlt, dlt_name ? dlt_name : "?"));
  }
  if (auto ok = impl->compile_filter(bpf); !ok) return tl::unexpected(ok.error());
  // pcap_major_version: 1 for a pcapng file read by libpcap >= 1.1 ("major version is 1" in
  // sf-pcapng.c); the classic format's is 2.
  const bool ng = pcap_major_version(impl->handle) == 1;
  CaptureSource s(std::move(impl), name, *link, ng);
  s.offset_ = ng ? 0 : 24;
  return s;
}

Result<CaptureSource> CaptureSource::open_live(const std::string& iface, const std::string& bpf, int poll_ms) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  auto impl = std::make_unique<Impl>();
  impl->handle = pcap_create(iface.c_str(), errbuf);
  if (impl->handle == nullptr) return make_error(fmt::format("{}: {}", iface, errbuf));
  pcap_t* p = impl->handle;
  // Headers are all the scan reads (TCP/IP with options fit in 256 bytes with any link header).
  pcap_set_snaplen(p, 256);
  pcap_set_immediate_mode(p, 1);
  pcap_set_timeout(p, poll_ms);
  const bool nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
  const int rc = pcap_activate(p);
  if (rc < 0) {
    if (rc == PCAP_ERROR_PERM_DENIED) {
      return core::os_failure("", EPERM, fmt::format("{}: no permission to capture: run as root or give "
                                                     "the binary CAP_NET_RAW (setcap cap_net_raw+ep ackstall)", iface));
    }
    if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
      return core::os_failure("", ENODEV, fmt::format("{}: no such interface", iface));
    }
    return core::os_failure("", EIO, fmt::format("{}: {}", iface, pcap_geterr(p)));
  }
  const int dlt = pcap_datalink(p);
  const auto link = link_type_from_pcap(static_cast<std::uint32_t>(dlt));
  if (!link) {
    const char* dlt_name = pcap_datalink_val_to_name(dlt);
    return make_error(fmt::format("{}: link type {} ({}) is not supported", iface, dlt, dlt_name ? dlt_name : "?"));
  }
  if (auto ok = impl->compile_filter(bpf); !ok) return tl::unexpected(ok.error());
  if (impl->have_program && pcap_setfilter(p, &impl->program) != 0) {
    return make_error(fmt::format("{}: filter: {}", iface, pcap_geterr(p)));
  }
  // Nonblocking, waited for with poll(): pcap_next_ex in immediate mode ignores the read
  // timeout on Linux (measured: it blocked for good on an idle interface), so --duration and
  // Ctrl-C would not be seen.
  if (pcap_setnonblock(p, 1, errbuf) != 0 || pcap_get_selectable_fd(p) < 0) {
    return make_error(fmt::format("{}: cannot wait for packets: {}", iface, errbuf));
  }
  CaptureSource s(std::move(impl), iface, *link, false);
  s.live_ = true;
  s.poll_ms_ = poll_ms;
  s.nano_ = nano;
  return s;
}

std::optional<std::uint64_t> CaptureSource::capture_drops() const {
  return impl_->reader ? impl_->reader->capture_drops() : std::nullopt;
}

std::optional<CaptureStats> CaptureSource::stats() const {
  if (!live_) return std::nullopt;
  pcap_stat st{};
  if (pcap_stats(impl_->handle, &st) != 0) return std::nullopt;
  return CaptureStats{st.ps_recv, st.ps_drop, st.ps_ifdrop};
}

Result<std::optional<Record>> CaptureSource::next() {
  if (cut_short_ || ended_) return std::optional<Record>{};
  if (live_) {
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(impl_->handle, &hdr, &data);
    if (rc == 0) {
      pollfd fd{pcap_get_selectable_fd(impl_->handle), POLLIN, 0};
      if (::poll(&fd, 1, poll_ms_) > 0) rc = pcap_next_ex(impl_->handle, &hdr, &data);
    }
    if (rc == 0) return std::optional<Record>{};  // nothing within the poll time
    if (rc != 1) return make_error(fmt::format("{}: {}", name_, pcap_geterr(impl_->handle)));
    const auto t = record_time_ns(hdr->ts, nano_);
    if (!t) return make_error(fmt::format("{}: packet {}: timestamp out of range", name_, frame_ + 1));
    ++frame_;
    return std::optional<Record>{record_of(frame_, *t, *hdr, data)};
  }
  if (impl_->reader) return next_from_reader();
  while (true) {
    std::FILE* f = pcap_file(impl_->handle);
    const long pos = (pcapng_ && f != nullptr && f != stdin) ? std::ftell(f) : -1;
    const std::uint64_t offset = pos >= 0 ? static_cast<std::uint64_t>(pos) : offset_;
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(impl_->handle, &hdr, &data);
    if (rc == PCAP_ERROR_BREAK) {  // end of file
      ended_ = true;
      return std::optional<Record>{};
    }
    const std::uint64_t number = frame_ + 1;
    // Formatted only for a message (per record it cost a fifth of a scan: perf).
    const auto where = [&] {
      return (pcapng_ && pos < 0) ? fmt::format("record {}", number)
                                  : fmt::format("record {} (offset {})", number, offset);
    };
    if (rc != 1) {
      const char* msg = pcap_geterr(impl_->handle);
      if (is_truncation(msg)) {
        cut_short_ = fmt::format("{}: cut short at {}: {}; analysed the {} records before it", name_,
                                 where(), msg, frame_);
        ended_ = true;
        return std::optional<Record>{};
      }
      return make_error(fmt::format("{}: {}: {}", name_, where(), msg));
    }
    const auto t = record_time_ns(hdr->ts, true);  // opened with nanosecond precision
    if (!t) return make_error(fmt::format("{}: {}: timestamp {} s out of range", name_, where(), hdr->ts.tv_sec));
    ++frame_;
    offset_ += 16 + hdr->caplen;
    if (impl_->have_program && pcap_offline_filter(&impl_->program, hdr, data) == 0) continue;
    return std::optional<Record>{record_of(frame_, *t, *hdr, data)};
  }
}

Result<std::optional<Record>> CaptureSource::next_from_reader() {
  FileReader& reader = *impl_->reader;
  while (true) {
    auto rec = reader.next();
    if (!rec) {
      if (!reader.truncated()) return tl::unexpected(rec.error());
      // "NAME: record N (offset M): truncated: WHAT" -> "NAME: cut short at record N (offset M): WHAT".
      std::string what = rec.error().message();
      if (what.starts_with(name_ + ": record ")) what.insert(name_.size() + 2, "cut short at ");
      if (const auto t = what.find(": truncated: "); t != std::string::npos) what.erase(t, 11);
      cut_short_ = fmt::format("{}; analysed the {} records before it", what, frame_);
      ended_ = true;
      return std::optional<Record>{};
    }
    if (!*rec) {
      ended_ = true;
      return rec;
    }
    ++frame_;
    const Record& r = **rec;
    if (impl_->have_program) {
      pcap_pkthdr hdr{};
      hdr.caplen = static_cast<bpf_u_int32>(r.data.size());
      hdr.len = r.orig_len;
      if (pcap_offline_filter(&impl_->program, &hdr, r.data.data()) == 0) continue;
    }
    return rec;
  }
}

Result<void> check_bpf(const std::string& bpf) {
  pcap_t* p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144, PCAP_TSTAMP_PRECISION_NANO);
  if (p == nullptr) return make_error("pcap_open_dead failed");
  bpf_program prog{};
  Result<void> out{};
  if (pcap_compile(p, &prog, bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
    out = make_error(fmt::format("'{}': {}", bpf, pcap_geterr(p)));
  } else {
    pcap_freecode(&prog);
  }
  pcap_close(p);
  return out;
}

}  // namespace ackstall::pcap
