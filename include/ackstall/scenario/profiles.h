// ackstall/scenario/profiles.h — the named TCP stack profiles and link presets scenarios use.
//
// A scenario says `sender.profile = "winxp"` / `receiver.profile = "openbsd-3.9"`; the profile
// sets every field of sim::TcpProfile, and any key after it overrides one field. Each profile
// lists its sources (docs/STACKS.md sections, KB articles, kernel sources);
// `ackstall sim --list-profiles` prints this table.
#pragma once

#include <span>
#include <string_view>

#include "ackstall/sim/config.h"

namespace ackstall::scenario {

struct NamedProfile {
  std::string_view name;
  std::string_view summary;  // one line: what this stack does differently
  std::string_view sources;  // where each rule comes from
  sim::TcpProfile (*make)();
};

struct NamedLink {
  std::string_view name;
  std::string_view summary;
  std::string_view sources;
  sim::LinkConfig (*make)();
};

std::span<const NamedProfile> tcp_profiles() noexcept;
std::span<const NamedLink> link_presets() noexcept;

const NamedProfile* find_profile(std::string_view name) noexcept;
const NamedLink* find_link_preset(std::string_view name) noexcept;

}  // namespace ackstall::scenario
