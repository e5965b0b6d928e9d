#include "ackstall/ttcp/config.h"

namespace ackstall::ttcp {

std::string_view to_string(AckMode m) noexcept {
  switch (m) {
    case AckMode::normal: return "default";
    case AckMode::classic: return "classic";
    case AckMode::quickack: return "quickack";
  }
  return "?";
}

std::optional<AckMode> parse_ack_mode(std::string_view s) noexcept {
  for (const AckMode m : kAckModes) {
    if (to_string(m) == s) return m;
  }
  return std::nullopt;
}

}  // namespace ackstall::ttcp
