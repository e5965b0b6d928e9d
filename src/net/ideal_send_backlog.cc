#include "ackstall/net/ideal_send_backlog.h"

#include <cerrno>
#include <string>

#include "eintr.h"

namespace ackstall::net {

std::optional<NetPolicy> parse_net_policy(std::string_view name) noexcept {
  if (name == "isb") return NetPolicy{core::PolicyKind::seed, core::SndbufRule::ideal_backlog};
  if (auto k = core::parse_policy_kind(name)) return NetPolicy{*k, core::SndbufRule::keep};
  return std::nullopt;
}

std::vector<std::string> net_policy_names() {
  std::vector<std::string> names = core::policy_names();
  names.emplace_back("isb");
  return names;
}

std::string_view to_string(const NetPolicy& p) noexcept {
  return p.isb() ? "isb" : core::to_string(p.core);
}

Finding<std::int64_t> query_ideal_send_backlog(SocketOps& ops, NativeSocket s) {
  auto r = detail::retry_on_eintr([&] { return ops.ideal_send_backlog(s); });
  if (!r) {
    // ENOPROTOOPT off Windows: no such query on this OS (socket_ops.h), said plainly, not as
    // strerror's "Protocol not available".
#if defined(_WIN32)
    constexpr bool kNoQueryHere = false;
#else
    constexpr bool kNoQueryHere = true;
#endif
    const std::string why = kNoQueryHere && r.error().code == ENOPROTOOPT
                                ? "this OS has no ideal send backlog: SIO_IDEAL_SEND_BACKLOG_QUERY is Windows-only"
                                : r.error().message();
    return {0, Provenance::fallback, "fallback: the policy keeps the current SO_SNDBUF (" + why + ")"};
  }
  return {*r, Provenance::measured, "SIO_IDEAL_SEND_BACKLOG_QUERY"};
}

SenderOptions sender_options(const NetPolicy& p) noexcept {
  SenderOptions o;
  o.policy = p.core;
  if (p.sndbuf == core::SndbufRule::ideal_backlog) o.follow_isb = true;
  if (p.sndbuf == core::SndbufRule::raise) o.allow_raise_sndbuf = true;
  return o;
}

}  // namespace ackstall::net
