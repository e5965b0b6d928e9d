// Ctrl-C and SIGTERM to a flag: ackstall/ttcp/interrupt.h. This name stays for cmd_watch.cc
// (changed on another branch this round); include the library's header instead, then this file
// goes.
#pragma once

#include "ackstall/ttcp/interrupt.h"

namespace ackstall::tools {
using ttcp::InterruptFlag;
}  // namespace ackstall::tools
