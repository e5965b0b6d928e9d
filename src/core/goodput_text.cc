#include "ackstall/core/goodput_text.h"

#include <cstdio>

namespace ackstall::core {

std::string format_goodput(double bytes_per_s) {
  char buf[48];
  const bool mega = bytes_per_s >= 1e6;
  const int n = std::snprintf(buf, sizeof buf, "%.2f %s", mega ? bytes_per_s / 1e6 : bytes_per_s / 1e3,
                              mega ? "MB/s" : "KB/s");
  return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
}

}  // namespace ackstall::core
