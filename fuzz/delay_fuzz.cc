// libFuzzer target: the delay grammar (sim/delay.h). Any input must parse to a Delay whose
// canonical text parses back to the same value and whose draws are bounded by its terms, or fail
// with one non-empty error line; never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ackstall/sim/delay.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ackstall::sim;
  if (size > 4096) return 0;  // the grammar is linear; long inputs only slow the search
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto d = Delay::parse(text);
  if (!d) {
    const std::string e = d.error().message();
    if (e.empty() || e.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  auto again = Delay::parse(d->to_string());
  if (!again || !(*again == *d)) std::abort();
  // Draws from a valid delay are never negative.
  if (d->check(Nanos::s(10)).empty()) {
    Rng rng(1);
    for (int i = 0; i < 8; ++i)
      if (d->draw(rng) < Nanos::zero()) std::abort();
  }
  return 0;
}
