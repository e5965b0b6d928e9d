// ackstall/pcap/link_type.h — the pcap link-layer types the decoder understands
// (values from https://www.tcpdump.org/linktypes.html).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ackstall::pcap {

enum class LinkType : std::uint8_t {
  null_loopback,  // LINKTYPE_NULL 0: 4-byte address family in the writer's byte order (BSD lo0)
  ethernet,       // LINKTYPE_ETHERNET 1 (802.1Q / 802.1ad tags are skipped)
  raw_ip,         // LINKTYPE_RAW 101, LINKTYPE_IPV4 228, and the old DLT_RAW values 12 and 14
  linux_sll,      // LINKTYPE_LINUX_SLL 113 ("any" device, cooked)
  linux_sll2,     // LINKTYPE_LINUX_SLL2 276
};

// The LinkType for a pcap header's link-type field (low 26 bits; FCS bits ignored).
std::optional<LinkType> link_type_from_pcap(std::uint32_t network) noexcept;
std::uint32_t pcap_value(LinkType type) noexcept;
std::string_view to_string(LinkType type) noexcept;

}  // namespace ackstall::pcap
