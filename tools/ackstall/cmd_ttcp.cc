// ackstall ttcp: ttcp-compatible throughput tester (ttcp_run.h), with --chunk, --emulate-afd,
// --verify, --json and receiver ACK modes.
#include <memory>

#include "app.h"
#include "ackstall/ttcp/interrupt.h"
#include "ttcp_cli.h"
#include "ttcp_run.h"

namespace ackstall::tools {

void add_ttcp_command(CLI::App& parent, Action& selected) {
  auto cli = std::make_shared<TtcpCli>();
  CLI::App* cmd = parent.add_subcommand(
      "ttcp", "ttcp-compatible sender/receiver: -t -s [-n N] [-l LEN] [-b BUF] [-D] HOST, or -r -s; "
              "plus --chunk, --emulate-afd[=QUOTA], --verify, --json, --ack-mode");
  cli->add_to(*cmd);
  cmd->callback([cli, &selected] {
    selected = [cli](Io io) {
      if (auto ok = cli->finish(true); !ok) return fail(io, ok.error(), kExitUsage);
      TtcpConfig cfg = cli->cfg;
      if (!cfg.source_sink) {  // ttcp without -s: -t sends stdin, -r writes the data to stdout
        cfg.data_in = io.in;
        cfg.data_out = &io.out;
      }
      // Ctrl-C / SIGTERM: the partial report, then 130 / 143 (interrupt.h).
      const ttcp::InterruptFlag interrupt;
      cfg.interrupt = &interrupt.flag();
      return run_ttcp(cfg, io);
    };
  });
}

}  // namespace ackstall::tools
