// libFuzzer target: `sim --sweep` and `--shard` specs (scenario/sweep.h). Each input line is one
// --sweep KEY=VALUES (at most 3); a line "#shard I/N" is a --shard. Any input must give axes whose
// every value loads as a --set, or one non-empty error line (the library's, naming the key or
// the spec, no CLI flag: sim prefixes "--sweep " / "--shard "); never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/scenario/scenario.h"
#include "ackstall/scenario/sweep.h"

namespace {

void check_error(const std::string& e) {
  if (e.empty() || e.find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ackstall::scenario;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<SweepAxis> axes;
  Shard shard;
  std::size_t start = 0;
  for (int line = 0; line < 4 && start <= text.size(); ++line) {
    const auto nl = text.find('\n', start);
    const std::string_view spec = text.substr(start, nl == std::string_view::npos ? text.npos : nl - start);
    start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (spec.starts_with("#shard ")) {
      auto s = parse_shard(spec.substr(7));
      if (s) {
        if (s->index == 0 || s->index > s->count) std::abort();
        shard = *s;
      } else {
        check_error(s.error().message());
      }
      continue;
    }
    auto axis = parse_sweep_axis(spec);
    if (!axis) {
      check_error(axis.error().message());
      continue;
    }
    if (axis->values.empty()) std::abort();
    // The first and the last value must load as --set on the defaults (sim::validate aside).
    for (const std::string* v : {&axis->values.front(), &axis->values.back()}) {
      const auto sc = parse_scenario("", "fuzz.toml", std::vector<std::string>{axis->key + "=" + *v});
      if (!sc && sc.error().message().find(": unknown") != std::string::npos &&
          sc.error().message().find("--set " + axis->key + ": unknown key") != std::string::npos)
        std::abort();  // the axis accepted a key the loader does not know
    }
    axes.push_back(std::move(*axis));
  }
  auto sweep = Sweep::make(std::move(axes));
  if (!sweep) {
    check_error(sweep.error().message());
    return 0;
  }
  std::uint64_t product = 1;
  for (const auto& a : sweep->axes()) product *= a.values.size();
  if (product != sweep->cells()) std::abort();
  const std::uint64_t n = sweep->shard_cells(shard);
  if (n > 0) {
    const std::uint64_t last = sweep->shard_cell(shard, n - 1);
    if (last >= sweep->cells() || last % shard.count != shard.index - 1) std::abort();
    const auto at = sweep->coordinates(last);
    for (std::size_t i = 0; i < at.size(); ++i)
      if (at[i] >= sweep->axes()[i].values.size()) std::abort();
  }
  return 0;
}
