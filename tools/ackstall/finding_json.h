// A net::Finding (a value with its provenance: measured or fallback, and the source) as JSON,
// the same shape wherever a command reports one (probe, ttcp --json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ackstall/net/path_probe.h"

namespace ackstall::tools {

template <class T>
nlohmann::json to_json(const net::Finding<T>& f) {
  return {{"value", f.value},
          {"provenance", std::string(net::to_string(f.provenance))},
          {"source", f.source}};
}

}  // namespace ackstall::tools
