#include "ackstall/pcap/frame_encoder.h"

#include <fmt/format.h>

#include "ackstall/pcap/checksum.h"
#include "ackstall/pcap/payload_pattern.h"
#include "ackstall/pcap/tcp_options.h"
#include "bytes.h"

namespace ackstall::pcap {

tl::expected<EncodedHeaders, std::string> encode_headers(const TcpPacket& p, std::uint16_t ip_id) {
  using detail::store_be16;
  using detail::store_be32;
  EncodedHeaders h;
  std::uint8_t* eth = h.bytes.data();
  std::uint8_t* ip = eth + kEthernetHeaderLen;
  std::uint8_t* tcp = ip + kIpv4HeaderLen;

  std::size_t opt_len = encode_tcp_options(p.options, std::span(tcp + kTcpHeaderLen, kMaxEncodedOptions));
  opt_len += encode_sack_blocks(p.sack, std::span(tcp + kTcpHeaderLen + opt_len, 20));
  const std::size_t tcp_hdr = kTcpHeaderLen + opt_len;
  const std::uint64_t ip_total = kIpv4HeaderLen + tcp_hdr + std::uint64_t{p.payload_len};
  if (ip_total > 0xffff) {
    return tl::unexpected(fmt::format(
        "payload_len {} too large: IPv4 total length {} exceeds 65535", p.payload_len, ip_total));
  }

  // Ethernet II: destination, source, EtherType IPv4.
  std::copy(p.dst.mac.begin(), p.dst.mac.end(), eth);
  std::copy(p.src.mac.begin(), p.src.mac.end(), eth + 6);
  store_be16(eth + 12, 0x0800);

  // IPv4 (RFC 791): no options, DF, TTL 64, protocol 6.
  ip[0] = 0x45;
  ip[1] = 0;
  store_be16(ip + 2, static_cast<std::uint16_t>(ip_total));
  store_be16(ip + 4, ip_id);
  store_be16(ip + 6, 0x4000);
  ip[8] = 64;
  ip[9] = 6;
  store_be16(ip + 10, 0);
  store_be32(ip + 12, p.src.addr);
  store_be32(ip + 16, p.dst.addr);
  InternetChecksum ip_sum;
  ip_sum.add(std::span<const std::uint8_t>(ip, kIpv4HeaderLen));
  store_be16(ip + 10, ip_sum.finish());

  // TCP (RFC 9293).
  store_be16(tcp, p.src.port);
  store_be16(tcp + 2, p.dst.port);
  store_be32(tcp + 4, p.seq);
  store_be32(tcp + 8, p.ack);
  tcp[12] = static_cast<std::uint8_t>((tcp_hdr / 4) << 4);
  tcp[13] = p.flags;
  store_be16(tcp + 14, p.window);
  store_be16(tcp + 16, 0);
  store_be16(tcp + 18, 0);
  const auto tcp_len = static_cast<std::uint32_t>(tcp_hdr + p.payload_len);
  InternetChecksum sum;
  sum.add_u32(p.src.addr);
  sum.add_u32(p.dst.addr);
  sum.add_u16(6);
  sum.add_u32(tcp_len);  // pseudo header TCP length (< 65536, so one word)
  sum.add(std::span<const std::uint8_t>(tcp, tcp_hdr));
  sum.add_word_sum(payload_word_sum(p.seq, p.payload_len));  // header length is even
  store_be16(tcp + 16, sum.finish());

  h.size = kEthernetHeaderLen + kIpv4HeaderLen + tcp_hdr;
  h.frame_len = static_cast<std::uint32_t>(h.size + p.payload_len);
  return h;
}

}  // namespace ackstall::pcap
