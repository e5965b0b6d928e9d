#include "ackstall/pcap/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <ostream>
#include <utility>

#include "ackstall/pcap/frame_encoder.h"
#include "ackstall/pcap/payload_pattern.h"
#include "bytes.h"

namespace ackstall::pcap {
namespace {

constexpr std::uint32_t kNanosecondMagic = 0xa1b23c4d;
constexpr std::uint32_t kLinktypeEthernet = 1;
constexpr std::int64_t kMaxTimeNs = (std::int64_t{1} << 32) * 1'000'000'000;

// pcap headers are written in host byte order, as libpcap does (readers detect it by the magic).
void store_host32(std::uint8_t* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    detail::store_le32(p, v);
  } else {
    detail::store_be32(p, v);
  }
}
void store_host16(std::uint8_t* p, std::uint16_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    detail::store_le16(p, v);
  } else {
    detail::store_be16(p, v);
  }
}

Result<void> check_options(const WriterOptions& o, const std::string& name) {
  if (o.snaplen == 0 || o.snaplen > kMaxSnaplen) {
    return make_error(fmt::format("{}: snaplen {} out of range 1..{}", name, o.snaplen, kMaxSnaplen));
  }
  return {};
}

}  // namespace

Writer::Writer(std::unique_ptr<std::ostream> owned, std::ostream* out, WriterOptions options,
               std::string name)
    : owned_(std::move(owned)), out_(out), options_(options), name_(std::move(name)) {
  buffer_.resize(16 + options_.snaplen);
}

// A moved-from Writer lets go of the stream: it may outlive the Writer that now owns the stream,
// and its destructor must not flush a stream that is gone.
Writer::Writer(Writer&& o) noexcept
    : owned_(std::move(o.owned_)), out_(std::exchange(o.out_, nullptr)), options_(o.options_),
      name_(std::move(o.name_)), buffer_(std::move(o.buffer_)), packets_(o.packets_), bytes_(o.bytes_) {}
Writer& Writer::operator=(Writer&& o) noexcept {
  if (this != &o) {
    if (out_ != nullptr) out_->flush();
    owned_ = std::move(o.owned_);
    out_ = std::exchange(o.out_, nullptr);
    options_ = o.options_;
    name_ = std::move(o.name_);
    buffer_ = std::move(o.buffer_);
    packets_ = o.packets_;
    bytes_ = o.bytes_;
  }
  return *this;
}
Writer::~Writer() {
  if (out_ != nullptr) out_->flush();
}

Result<Writer> Writer::create(const std::filesystem::path& path, WriterOptions options) {
  if (auto ok = check_options(options, path.string()); !ok) return tl::unexpected(ok.error());
  auto file = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*file) return make_error(fmt::format("{}: cannot create file", path.string()));
  std::ostream* out = file.get();
  Writer w(std::move(file), out, options, path.string());
  if (auto ok = w.write_file_header(); !ok) return tl::unexpected(ok.error());
  return w;
}

Result<Writer> Writer::to_stream(std::ostream& out, WriterOptions options, std::string name) {
  if (auto ok = check_options(options, name); !ok) return tl::unexpected(ok.error());
  Writer w(nullptr, &out, options, std::move(name));
  if (auto ok = w.write_file_header(); !ok) return tl::unexpected(ok.error());
  return w;
}

Result<void> Writer::write_file_header() {
  std::uint8_t h[24];
  store_host32(h, kNanosecondMagic);
  store_host16(h + 4, 2);
  store_host16(h + 6, 4);
  store_host32(h + 8, 0);   // thiszone
  store_host32(h + 12, 0);  // sigfigs
  store_host32(h + 16, options_.snaplen);
  store_host32(h + 20, kLinktypeEthernet);
  out_->write(reinterpret_cast<const char*>(h), sizeof h);
  if (!*out_) return make_error(fmt::format("{}: write failed (file header)", name_));
  bytes_ += sizeof h;
  return {};
}

Result<void> Writer::write(const TcpPacket& p) {
  const std::uint64_t number = packets_ + 1;
  if (p.time_ns < 0 || p.time_ns >= kMaxTimeNs) {
    return make_error(fmt::format("{}: packet {}: time_ns {} outside the pcap range [0, 2^32 s)",
                                  name_, number, p.time_ns));
  }
  auto headers = encode_headers(p, static_cast<std::uint16_t>(number));
  if (!headers) return make_error(fmt::format("{}: packet {}: {}", name_, number, headers.error()));
  const std::uint32_t caplen = std::min(headers->frame_len, options_.snaplen);

  std::uint8_t* rec = buffer_.data();
  store_host32(rec, static_cast<std::uint32_t>(p.time_ns / 1'000'000'000));
  store_host32(rec + 4, static_cast<std::uint32_t>(p.time_ns % 1'000'000'000));
  store_host32(rec + 8, caplen);
  store_host32(rec + 12, headers->frame_len);
  const std::size_t head = std::min<std::size_t>(caplen, headers->size);
  std::copy_n(headers->bytes.begin(), head, rec + 16);
  if (caplen > head) fill_payload(p.seq, std::span(rec + 16 + head, caplen - head));

  out_->write(reinterpret_cast<const char*>(rec), static_cast<std::streamsize>(16 + caplen));
  if (!*out_) return make_error(fmt::format("{}: write failed at packet {}", name_, number));
  ++packets_;
  bytes_ += 16 + caplen;
  return {};
}

Result<void> Writer::flush() {
  out_->flush();
  if (!*out_) return make_error(fmt::format("{}: write failed (flush)", name_));
  return {};
}

}  // namespace ackstall::pcap
