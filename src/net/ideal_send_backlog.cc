#include "ackstall/net/ideal_send_backlog.h"

#include <climits>
#include <string>

#include "eintr.h"

namespace ackstall::net {

std::optional<NetPolicy> parse_net_policy(std::string_view name) noexcept {
  if (name == "isb") return NetPolicy{core::PolicyKind::seed, true};
  if (auto k = core::parse_policy_kind(name)) return NetPolicy{*k, false};
  return std::nullopt;
}

std::vector<std::string> net_policy_names() {
  std::vector<std::string> names = core::policy_names();
  names.emplace_back("isb");
  return names;
}

std::string_view to_string(const NetPolicy& p) noexcept {
  return p.isb ? "isb" : core::to_string(p.core);
}

Finding<std::int64_t> query_ideal_send_backlog(SocketOps& ops, NativeSocket s) {
  auto r = detail::retry_on_eintr([&] { return ops.ideal_send_backlog(s); });
  if (!r) {
    return {0, Provenance::fallback, "fallback: seed policy on the current SO_SNDBUF (" +
                                         r.error().message() + ")"};
  }
  return {*r, Provenance::measured, "SIO_IDEAL_SEND_BACKLOG_QUERY"};
}

Result<Finding<std::int64_t>> IsbTuner::update(Clock::time_point now) {
  if (last_query_ && now - *last_query_ < interval_) return last_;
  last_query_ = now;
  last_ = query_ideal_send_backlog(*ops_, sender_->socket());
  if (last_.provenance != Provenance::measured || last_.value <= 0) return last_;
  const std::int64_t want = std::min<std::int64_t>(last_.value, INT_MAX);
  if (applied_ != want) {
    if (auto r = sender_->set_option(SocketOption::send_buffer, static_cast<int>(want)); !r) {
      return tl::unexpected(std::move(r.error()));
    }
    applied_ = want;
  }
  return last_;
}

}  // namespace ackstall::net
