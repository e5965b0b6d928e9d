#include "ackstall/pcap/tcp_packet.h"

#include <fmt/format.h>

namespace ackstall::pcap {

std::string format_ipv4(std::uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

std::string format_endpoint(const Endpoint& e) {
  return fmt::format("{}:{}", format_ipv4(e.addr), e.port);
}

std::string format_flags(std::uint8_t flags) {
  static constexpr std::pair<std::uint8_t, const char*> kNames[] = {
      {tcp_flag::syn, "SYN"}, {tcp_flag::fin, "FIN"}, {tcp_flag::rst, "RST"},
      {tcp_flag::psh, "PSH"}, {tcp_flag::ack, "ACK"}, {tcp_flag::urg, "URG"}};
  std::string s;
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) == 0) continue;
    if (!s.empty()) s += ',';
    s += name;
  }
  return s.empty() ? "-" : s;
}

}  // namespace ackstall::pcap
