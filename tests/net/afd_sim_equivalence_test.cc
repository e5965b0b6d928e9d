// One send/ACK trace through the simulator's AFD send buffer (sim::SendBufferAccounting, kind
// afd, nonblocking) and through the Linux AFD emulator (net::AfdSocketOps over a scripted
// SocketOps whose error queue carries the TX_ACK completions): both admit and refuse the same
// sends, and release the same bytes after every ACK. Both charge through core::AfdQuota; this
// checks that each wires it the same way (whole sends charged, cumulative ACKs, the seed's
// "bufferedbytes < so_sndbuf" admission).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <random>
#include <vector>

#include "ackstall/net/afd_emulator.h"
#include "ackstall/sim/send_buffer.h"
#include "fake_socket_ops.h"

namespace ackstall::net {
namespace {

constexpr NativeSocket kSocket = 3;

struct Step {
  bool is_ack;
  std::int64_t value;  // send length, or cumulative ACKed offset
};

// Sends of random lengths against quota `quota`; after each refused send, an ACK of a random
// point of what was sent (sometimes the exact end of a send, sometimes mid-send, sometimes stale).
std::vector<Step> random_trace(std::uint32_t seed, std::int64_t quota, int steps) {
  std::mt19937 rng(seed);
  std::vector<Step> trace;
  std::int64_t sent_guess = 0;
  for (int i = 0; i < steps; ++i) {
    if (rng() % 3 == 0 && sent_guess > 0) {
      trace.push_back({true, static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(sent_guess + 1))});
    } else {
      const auto len = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(2 * quota));
      trace.push_back({false, len});
      sent_guess += len;
    }
  }
  return trace;
}

// Returns how many sends both refused.
int run_both(std::int64_t quota, const std::vector<Step>& trace) {
  int refusals = 0;
  sim::SendBufferConfig cfg;
  cfg.kind = sim::SendBufferKind::afd;
  cfg.size = quota;
  sim::SendBufferAccounting simulated(cfg);

  testing::FakeSocketOps inner;
  auto attached = AfdSocketOps::attach(inner, kSocket, {.quota = quota});
  EXPECT_TRUE(attached) << attached.error();
  if (!attached) return refusals;
  AfdSocketOps& emulated = **attached;

  std::vector<std::byte> data(static_cast<std::size_t>(2 * quota) + 1, std::byte{1});
  std::int64_t acked = 0;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const Step& s = trace[i];
    SCOPED_TRACE(::testing::Message() << "step " << i << (s.is_ack ? " ack " : " send ") << s.value);
    if (s.is_ack) {
      // The emulator learns ACK progress from the error queue: id = offset of the last ACKed
      // byte (modulo 2^32). Stale or empty ACKs carry nothing new to either side.
      acked = std::max(acked, std::min(s.value, emulated.quota().sent()));
      simulated.on_acked(s.value);
      if (acked > 0)
        inner.error_queue.emplace_back(testing::FakeSocketOps::tx_ack(static_cast<std::uint32_t>(acked - 1)));
      continue;
    }
    const sim::SendOutcome out = simulated.send(s.value, /*nonblocking=*/true);
    const core::ByteSlice slice{data.data(), static_cast<std::size_t>(s.value)};
    const auto r = emulated.send(kSocket, {&slice, 1}, SendFlags::none);
    if (out.would_block) {
      EXPECT_FALSE(r) << "the emulator admitted a send the simulator refused";
      if (r) return refusals;
      EXPECT_EQ(r.error().code, EAGAIN);
    } else {
      EXPECT_TRUE(r) << "the emulator refused a send the simulator admitted: " << r.error();
      if (!r) return refusals;
      EXPECT_EQ(static_cast<std::int64_t>(*r), out.accepted);
    }
    EXPECT_EQ(emulated.quota().sent(), simulated.enqueued());
    // The emulator reads completions lazily, only when the quota looks full (that cannot change
    // a decision: a stale charge is never smaller than the true one). So after a refused send it
    // has read them all, and both hold the same charge and the same sends outstanding.
    if (out.would_block) {
      EXPECT_EQ(emulated.quota().charged(), simulated.buffered());
      EXPECT_EQ(static_cast<std::int64_t>(emulated.quota().outstanding_sends()),
                simulated.outstanding_sends());
      ++refusals;
    }
  }
  return refusals;
}

#if defined(__linux__)

TEST(AfdSimEquivalence, TheSeedsPatternAdmitsAndReleasesIdentically) {
  // 8192-byte quota, the seed's chunks of an 8192-byte send (5840 + 2352), ACKs at pair ends.
  EXPECT_EQ(run_both(8192, {{false, 5840}, {false, 2352}, {false, 5840}, {true, 2920}, {false, 5840},
                  {true, 5840}, {false, 5840}, {true, 8192}, {false, 2352}, {true, 14032},
                  {false, 5840}, {true, 14032}, {false, 100}}),
            3);  // the 3rd and 4th sends wait for the first's last byte; the last for a stale ACK
}

TEST(AfdSimEquivalence, RandomTracesAdmitAndReleaseIdentically) {
  int refusals = 0;
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    for (const std::int64_t quota : {1, 1460, 8192, 65536}) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " quota " << quota);
      refusals += run_both(quota, random_trace(seed, quota, 60));
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(refusals, 1000);  // the traces do exercise the quota
}

#endif

}  // namespace
}  // namespace ackstall::net
