// sim::CauseAccountant: the simulator's own cause accounts (sim/cause_accounts.h). Every moment of
// the transfer goes to one cause (the accounts sum to the duration), a marked stall's cause is the
// table's (core/stall_kind.h), and the flight goes to the path when it was full.
#include <gtest/gtest.h>

#include "ackstall/sim/cause_accounts.h"
#include "ackstall/sim/experiment.h"

namespace ackstall::sim {
namespace {

using core::LimitCause;

double share(const CauseAccounts& a, LimitCause c) {
  return static_cast<double>(a.cause_ns[static_cast<std::size_t>(c)]) / static_cast<double>(a.duration_ns);
}

CauseAccounts accounts_of(const ExperimentConfig& cfg, Summary* summary = nullptr) {
  CauseAccountant own(Nanos(cfg.stall_threshold));
  const auto s = run_experiment(cfg, &own);
  EXPECT_TRUE(s);
  if (summary && s) *summary = *s;
  return own.finish();
}

TEST(CauseAccounts, TheSeedsStallIsTheDelayedAck) {
  ExperimentConfig cfg;  // the seed's unpatched setup: every write waits on a held ACK
  cfg.app.transmitter.writes = 200;
  Summary s;
  const CauseAccounts a = accounts_of(cfg, &s);
  std::int64_t sum = 0;
  for (std::int64_t t : a.cause_ns) sum += t;
  EXPECT_EQ(sum, a.duration_ns);
  // From the first data segment to the last ACK: within the run's span from the SYN.
  EXPECT_GT(a.duration_ns, s.duration.count() * 95 / 100);
  EXPECT_LE(a.duration_ns, s.duration.count());
  EXPECT_GT(share(a, LimitCause::delayed_ack), 0.95);
  EXPECT_GE(a.stalls, 190u);
  EXPECT_GT(a.rtt_floor_ns, 0);
}

TEST(CauseAccounts, APatchedSenderFillsThePath) {
  ExperimentConfig cfg;
  cfg.app.transmitter.writes = 2000;
  cfg.sender.send_buffer.size = 65536;  // the seed's best row: a 64 KiB buffer, the link full
  cfg.app.transmitter.nonblocking = false;
  const CauseAccounts a = accounts_of(cfg);
  EXPECT_GT(share(a, LimitCause::network), 0.95);
  EXPECT_EQ(a.cause_ns[static_cast<std::size_t>(LimitCause::delayed_ack)], 0);
  EXPECT_EQ(a.stalls, 0u);
}

TEST(CauseAccounts, NothingSentNothingAccounted) {
  CauseAccountant own(Nanos(20'000'000));
  const CauseAccounts a = own.finish();
  EXPECT_EQ(a.duration_ns, 0);
  EXPECT_EQ(a.bytes_acked, 0);
}

}  // namespace
}  // namespace ackstall::sim
