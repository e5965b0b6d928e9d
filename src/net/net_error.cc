#include "ackstall/net/net_error.h"

#include <system_error>

namespace ackstall::net {

std::string NetError::message() const {
  std::string out(call);
  out += ": ";
  out += detail.empty() ? std::generic_category().message(code) : detail;
  return out;
}

}  // namespace ackstall::net
