// ackstall plan: the chunk sizes a policy produces for one send.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "ackstall/core/chunk_policy.h"
#include "app.h"
#include "policy_option.h"

namespace ackstall::tools {

void add_plan_command(CLI::App& parent, Action& selected) {
  struct Options {
    std::int64_t mss = 0, sndbuf = 0;
    std::uint64_t len = 0;
    core::PolicyKind policy = core::PolicyKind::seed;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = parent.add_subcommand(
      "plan", "Print the chunk sizes a policy produces for one send, one per line");
  cmd->add_option("--mss", opt->mss, "maximum segment size in bytes")
      ->required()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{65495}));
  cmd->add_option("--sndbuf", opt->sndbuf, "tracked SO_SNDBUF (Winsock quota) in bytes")
      ->required()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 31));
  cmd->add_option("--len", opt->len, "bytes in the application's send")
      ->required()
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 36));
  add_policy_option(*cmd, opt->policy);
  cmd->add_flag("--json", opt->json, "print JSON instead of one chunk per line");
  cmd->callback([opt, &selected] {
    selected = [opt](Io io) {
      const core::ChunkPolicy policy(opt->policy, {opt->sndbuf, opt->mss, true});
      const auto chunks = policy.plan(static_cast<std::size_t>(opt->len));
      if (opt->json) {
        nlohmann::json j = {{"policy", std::string(core::to_string(opt->policy))},
                            {"mss", opt->mss},
                            {"sndbuf", opt->sndbuf},
                            {"len", opt->len},
                            {"base_chunk", policy.base_chunk()},
                            {"chunks", chunks}};
        io.out << j.dump(2) << '\n';
      } else {
        for (std::size_t c : chunks) fmt::print(io.out, "{}\n", c);
      }
      return kExitOk;
    };
  });
}

}  // namespace ackstall::tools
