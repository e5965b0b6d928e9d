#include "ackstall/core/chunk_policy.h"

#include <algorithm>

namespace ackstall::core {

std::optional<PolicyKind> parse_policy_kind(std::string_view name) noexcept {
  for (const PolicyKind k : kPolicyKinds)
    if (to_string(k) == name) return k;
  return std::nullopt;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const PolicyKind k : kPolicyKinds) names.emplace_back(to_string(k));
  return names;
}

std::string_view to_string(PolicyKind kind) noexcept {
  switch (kind) {
    case PolicyKind::none: return "none";
    case PolicyKind::seed: return "seed";
    case PolicyKind::cygwin: return "cygwin";
  }
  return "?";
}

ChunkPolicy::ChunkPolicy(PolicyKind kind, SocketParams params) noexcept : kind_(kind) {
  update(params);
}

void ChunkPolicy::update(SocketParams params) noexcept {
  params_ = params;
  base_ = 0;
  if (!params.stream || params.sndbuf <= 0) return;  // seed: "Not TCP, don't chunk"
  switch (kind_) {
    case PolicyKind::none:
      break;
    case PolicyKind::seed:
      // seed, update_chunk: newchunk = mss*((sndbuf-1)/mss)
      if (params.mss > 0) base_ = params.mss * ((params.sndbuf - 1) / params.mss);
      break;
    case PolicyKind::cygwin:
      // Cygwin send_internal: buf.len = min(buf.len, wmem())
      base_ = params.sndbuf;
      break;
  }
}

std::size_t ChunkPolicy::next_chunk(std::size_t remaining) const noexcept {
  if (base_ <= 0 || remaining == 0) return remaining;
  const auto base = static_cast<std::size_t>(base_);
  switch (kind_) {
    case PolicyKind::seed: {
      // seed, get_chunk: if (tosend<sndbuf) newchunk = 0;
      //                  else if (tosend-chunk<mss && chunk>mss) newchunk -= mss;
      const auto sndbuf = static_cast<std::size_t>(params_.sndbuf);
      const auto mss = static_cast<std::size_t>(params_.mss);
      if (remaining < sndbuf) return remaining;
      // remaining >= sndbuf > base, so remaining - base cannot underflow.
      if (remaining - base < mss && base > mss) return base - mss;
      return base;
    }
    case PolicyKind::cygwin:
      return std::min(remaining, base);
    case PolicyKind::none:
      break;
  }
  return remaining;
}

std::vector<std::size_t> ChunkPolicy::plan(std::size_t len) const {
  std::vector<std::size_t> out;
  while (len > 0) {
    const std::size_t n = next_chunk(len);
    out.push_back(n);
    len -= n;
  }
  return out;
}

}  // namespace ackstall::core
