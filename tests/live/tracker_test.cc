#include "ackstall/live/tracker.h"

#include <gtest/gtest.h>

namespace ackstall::live {
namespace {

using core::LimitCause;
constexpr std::int64_t kMs = 1'000'000;

Sample sending(std::uint64_t cookie, std::int64_t at_ns, std::uint64_t busy_us, std::uint64_t acked) {
  Sample s;
  s.at_ns = at_ns;
  s.key = {"10.0.0.1:40000", "10.0.0.2:5001", 40000, 5001, cookie};
  s.info.state = 1;
  s.info.rtt_us = 1000;
  s.info.min_rtt_us = 900;
  s.info.snd_cwnd = 10;
  s.info.snd_mss = 1448;
  s.info.unacked = 4;
  s.info.busy_us = busy_us;
  s.info.rwnd_limited_us = 0;
  s.info.sndbuf_limited_us = 0;
  s.info.bytes_acked = acked;
  return s;
}

TEST(Tracker, ASocketOpenedBetweenRoundsIsAttributedFromItsStart) {
  Tracker t;
  EXPECT_TRUE(t.update({sending(1, 0, 5'000'000, 1'000'000)}).empty());  // the first round remembers
  // Round 2, 100 ms later: socket 2 opened since and was busy 30 ms of its life.
  const auto rows = t.update({sending(1, 100 * kMs, 5'100'000, 2'000'000), sending(2, 100 * kMs, 30'000, 40'000)});
  ASSERT_EQ(rows.size(), 2U);
  const ConnectionView& fresh = rows[0].now.key.cookie == 2 ? rows[0] : rows[1];
  EXPECT_EQ(fresh.last.role, Role::sender);
  EXPECT_EQ(fresh.last.interval_ns, 30 * kMs);
  EXPECT_EQ(fresh.last.bytes_acked, 39'999U);  // tcpi_bytes_acked counts the SYN too
  EXPECT_EQ(fresh.last.times[static_cast<std::size_t>(LimitCause::network)], 30 * kMs);
  // Busy longer than the rounds apart (a jiffy's rounding): not before the previous round.
  const auto later = t.update({sending(3, 150 * kMs, 80'000, 1000)});
  ASSERT_EQ(later.size(), 1U);
  EXPECT_EQ(later[0].last.interval_ns, 50 * kMs);
}

TEST(Tracker, AClientOpenedBetweenRoundsThatOnlyReceivesIsNoSender) {
  Tracker t;
  EXPECT_TRUE(t.update({sending(1, 0, 5'000'000, 1'000'000)}).empty());
  // Socket 2 connected since and downloads: tcpi_bytes_acked is 1 (its SYN), nothing out.
  Sample client = sending(2, 100 * kMs, 0, 1);
  client.key = {"10.0.0.2:41000", "10.0.0.1:80", 41000, 80, 2};
  client.info.unacked = 0;
  client.info.bytes_received = 500'000;
  const auto rows = t.update({sending(1, 100 * kMs, 5'100'000, 2'000'000), client});
  ASSERT_EQ(rows.size(), 2U);
  const ConnectionView& fresh = rows[0].now.key.cookie == 2 ? rows[0] : rows[1];
  EXPECT_EQ(fresh.last.bytes_acked, 0U);  // the SYN is no data sent
  EXPECT_EQ(fresh.last.role, Role::receiver);
}

TEST(Tracker, AClosedSocketLeavesItsAddressesEventsToTheSocketThatReusedThem) {
  Tracker t(true);
  t.update({sending(1, 0, 5'000'000, 1'000'000)});
  t.update({sending(1, 100 * kMs, 5'100'000, 2'000'000)});
  // Socket 1 is gone; socket 2 has the same addresses and ports, and the events saw a 30 ms
  // delayed-ACK stall on them: socket 2's, not the closed one's too.
  const std::unordered_map<std::string, std::int64_t> stalls = {{"10.0.0.1:40000 10.0.0.2:5001", 30 * kMs}};
  t.update({sending(2, 200 * kMs, 60'000, 100'000)}, stalls, {});
  for (const ConnectionView& v : t.summary()) {
    if (v.now.key.cookie == 1) {
      EXPECT_TRUE(v.closed);
      EXPECT_EQ(v.total.times[static_cast<std::size_t>(LimitCause::delayed_ack)], 0);
    }
  }
}

}  // namespace
}  // namespace ackstall::live
