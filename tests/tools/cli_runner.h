// Runs the ackstall command line in-process for tests (ackstall/cli/run.h) and checks the
// one-line error contract: "ackstall: ..." on stderr, one line, the expected exit code.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ackstall/cli/run.h"

namespace ackstall::tools {

struct CliResult {
  int code;
  std::string out, err;
};

// `args` follow "ackstall" (the subcommand first); `input` is its stdin.
inline CliResult run_ackstall(const std::vector<std::string>& args, const std::string& input = {}) {
  std::vector<const char*> argv = {"ackstall"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  std::istringstream in(input);
  const int code = run(argv, {out, err, &in});
  return {code, out.str(), err.str()};
}

inline void expect_one_line_error(const CliResult& r, int code, std::string_view mentions) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(r.err.rfind("ackstall: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
}

}  // namespace ackstall::tools
