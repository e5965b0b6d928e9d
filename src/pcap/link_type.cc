#include "ackstall/pcap/link_type.h"

namespace ackstall::pcap {

std::optional<LinkType> link_type_from_pcap(std::uint32_t network) noexcept {
  switch (network & 0x03FFFFFF) {  // LT_LINKTYPE(): the upper bits carry FCS information
    case 0: return LinkType::null_loopback;
    case 1: return LinkType::ethernet;
    case 12:
    case 14:
    case 101:
    case 228: return LinkType::raw_ip;
    case 113: return LinkType::linux_sll;
    case 276: return LinkType::linux_sll2;
    default: return std::nullopt;
  }
}

std::uint32_t pcap_value(LinkType type) noexcept {
  switch (type) {
    case LinkType::null_loopback: return 0;
    case LinkType::ethernet: return 1;
    case LinkType::raw_ip: return 101;
    case LinkType::linux_sll: return 113;
    case LinkType::linux_sll2: return 276;
  }
  return 1;
}

std::string_view to_string(LinkType type) noexcept {
  switch (type) {
    case LinkType::null_loopback: return "null/loopback";
    case LinkType::ethernet: return "ethernet";
    case LinkType::raw_ip: return "raw IPv4";
    case LinkType::linux_sll: return "linux cooked (SLL)";
    case LinkType::linux_sll2: return "linux cooked v2 (SLL2)";
  }
  return "?";
}

}  // namespace ackstall::pcap
