// ackstall/core/goodput_text.h — a goodput as reports print it, in decimal units as ttcp and
// iperf do: "363.10 KB/s", "11.02 MB/s" (MB from 10^6 bytes/s up).
#pragma once

#include <string>

namespace ackstall::core {

std::string format_goodput(double bytes_per_s);

}  // namespace ackstall::core
