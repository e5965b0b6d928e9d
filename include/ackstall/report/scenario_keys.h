// ackstall/report/scenario_keys.h — the simulator's self-description: every scenario key with
// its type, unit, default and grammar (`sim --list-keys`), and one scenario fully resolved with
// where each value came from (`sim --show-config`), as text or JSON.
#pragma once

#include <iosfwd>

#include "ackstall/scenario/scenario.h"

namespace ackstall::report {

void list_keys(std::ostream& out, bool json);
void show_config(std::ostream& out, const scenario::Scenario& sc, bool json);

}  // namespace ackstall::report
