// libFuzzer target: the frame decoder (link layer, IPv4, TCP, options) on arbitrary bytes.
//
// Input: byte 0 picks the link type, bytes 1-2 (big-endian) are how much longer the frame was on
// the wire than captured, the rest is the captured frame. Checks, beyond "no crash, no UB":
//   * a decoded segment re-encodes (frame_encoder) and decodes back to the same TcpPacket;
//   * captured_payload never exceeds payload_len or the captured bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ackstall/pcap/frame_decoder.h"
#include "ackstall/pcap/frame_encoder.h"

using namespace ackstall::pcap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  static constexpr LinkType kLinks[] = {LinkType::ethernet, LinkType::raw_ip, LinkType::linux_sll,
                                        LinkType::linux_sll2, LinkType::null_loopback};
  const LinkType link = kLinks[data[0] % 5];
  const std::span<const std::uint8_t> frame(data + 3, size - 3);
  const auto orig_len = static_cast<std::uint32_t>(frame.size() + ((data[1] << 8) | data[2]));
  auto d = decode_frame(link, frame, orig_len, 1);
  if (!d) {
    if (d.error().reason.empty()) std::abort();
    return 0;
  }
  if (d->captured_payload > d->packet.payload_len || d->captured_payload > frame.size()) std::abort();
  auto h = encode_headers(d->packet, 7);
  if (!h) return 0;  // a TSO-sized datagram, or our options plus its payload exceed 64 KiB
  auto again = decode_frame(LinkType::ethernet, std::span(h->bytes.data(), h->size), h->frame_len, 1);
  if (!again || !(again->packet == d->packet)) std::abort();
  return 0;
}
