// ackstall/net/net_error.h — net reports failures as core::Error (core/error.h), like every
// ackstall library: an OS failure names the call and its errno value.
#pragma once

#include "ackstall/core/error.h"

namespace ackstall::net {

using core::Error;
using core::Result;

}  // namespace ackstall::net
