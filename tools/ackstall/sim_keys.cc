#include "sim_keys.h"

namespace ackstall::tools {

core::Error name_set_flag(core::Error e, std::string_view source) {
  constexpr std::string_view kOverride = "override ";
  std::string& d = e.detail;
  const std::string with_source = std::string(source) + ": " + std::string(kOverride);
  if (d.starts_with(kOverride)) {
    d.replace(0, kOverride.size(), "--set ");
  } else if (d.starts_with(with_source)) {
    d.replace(source.size() + 2, kOverride.size(), "--set ");
  }
  return e;
}

}  // namespace ackstall::tools
