#include "ackstall/pcap/checksum.h"

namespace ackstall::pcap {

void InternetChecksum::add(std::span<const std::uint8_t> bytes) noexcept {
  std::size_t i = 0;
  if (odd_ && !bytes.empty()) {
    sum_ += bytes[0];
    odd_ = false;
    i = 1;
  }
  for (; i + 1 < bytes.size(); i += 2) sum_ += (std::uint32_t{bytes[i]} << 8) | bytes[i + 1];
  if (i < bytes.size()) {
    sum_ += std::uint32_t{bytes[i]} << 8;
    odd_ = true;
  }
}

std::uint16_t fold_checksum(std::uint64_t sum) noexcept {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

std::uint16_t InternetChecksum::finish() const noexcept {
  return static_cast<std::uint16_t>(~fold_checksum(sum_));
}

}  // namespace ackstall::pcap
