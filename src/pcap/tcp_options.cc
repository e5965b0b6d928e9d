#include "ackstall/pcap/tcp_options.h"

#include "bytes.h"

namespace ackstall::pcap {
namespace {

constexpr std::uint8_t kEol = 0, kNop = 1, kMss = 2, kWscale = 3, kSackOk = 4, kSack = 5, kTimestamps = 8;

}  // namespace

std::size_t encode_tcp_options(const TcpOptions& o, std::span<std::uint8_t> out) noexcept {
  std::uint8_t* p = out.data();
  std::size_t n = 0;
  if (o.mss) {
    p[n++] = kMss;
    p[n++] = 4;
    detail::store_be16(p + n, *o.mss);
    n += 2;
  }
  if (o.timestamps) {
    if (o.sack_ok) {
      p[n++] = kSackOk;
      p[n++] = 2;
    } else {
      p[n++] = kNop;
      p[n++] = kNop;
    }
    p[n++] = kTimestamps;
    p[n++] = 10;
    detail::store_be32(p + n, o.timestamps->val);
    detail::store_be32(p + n + 4, o.timestamps->ecr);
    n += 8;
  } else if (o.sack_ok) {
    p[n++] = kNop;
    p[n++] = kNop;
    p[n++] = kSackOk;
    p[n++] = 2;
  }
  if (o.wscale) {
    p[n++] = kNop;
    p[n++] = kWscale;
    p[n++] = 3;
    p[n++] = *o.wscale;
  }
  return n;
}

std::size_t encode_sack_blocks(const SackBlocks& sack, std::span<std::uint8_t> out) noexcept {
  if (sack.count == 0) return 0;
  std::uint8_t* p = out.data();
  p[0] = kNop;
  p[1] = kNop;
  p[2] = kSack;
  p[3] = static_cast<std::uint8_t>(2 + 8 * sack.count);
  for (std::size_t i = 0; i < 2u * sack.count; ++i) detail::store_be32(p + 4 + 4 * i, sack.edges[i]);
  return 4 + 8u * sack.count;
}

ParsedTcpOptions parse_tcp_options(std::span<const std::uint8_t> bytes) noexcept {
  ParsedTcpOptions r;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const std::uint8_t kind = bytes[i];
    if (kind == kEol) break;
    if (kind == kNop) {
      ++i;
      continue;
    }
    if (i + 1 >= bytes.size()) {
      r.malformed = true;
      break;
    }
    const std::size_t len = bytes[i + 1];
    if (len < 2 || i + len > bytes.size()) {
      r.malformed = true;
      break;
    }
    const std::uint8_t* v = bytes.data() + i + 2;
    const auto expect = [&](std::size_t want) {
      if (len != want) r.malformed = true;
      return len == want;
    };
    switch (kind) {
      case kMss:
        if (expect(4)) r.options.mss = detail::load_be16(v);
        break;
      case kWscale:
        if (expect(3)) r.options.wscale = v[0];
        break;
      case kSackOk:
        if (expect(2)) r.options.sack_ok = true;
        break;
      case kTimestamps:
        if (expect(10)) r.options.timestamps = TcpTimestamps{detail::load_be32(v), detail::load_be32(v + 4)};
        break;
      case kSack:  // RFC 2018 §3: 2 + 8n bytes, n >= 1; the first two blocks kept
        if (len < 10 || (len - 2) % 8 != 0) {
          r.malformed = true;
        } else {
          r.sack.count = len >= 18 ? 2 : 1;
          for (std::size_t e = 0; e < 2u * r.sack.count; ++e) r.sack.edges[e] = detail::load_be32(v + 4 * e);
        }
        break;
      default:
        break;  // MD5, fast open, ...: skipped
    }
    if (r.malformed) break;
    i += len;
  }
  return r;
}

}  // namespace ackstall::pcap
