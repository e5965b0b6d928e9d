// The one vocabulary of stalls and causes (core/stall_kind.h, core/limit_cause.h): walks both
// tables, so a new row (a new kind or cause) is checked here without touching this test.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ackstall/core/limit_cause.h"
#include "ackstall/core/stall_kind.h"

namespace ackstall::core {
namespace {

TEST(Vocabulary, EveryCauseHasOneRowWithItsOwnKeyAndProse) {
  std::set<std::string_view> keys, prose;
  for (std::size_t i = 0; i < kLimitCauseCount; ++i) {
    const LimitCause c = kLimitCauses[i];
    EXPECT_EQ(static_cast<std::size_t>(c), i);
    EXPECT_TRUE(keys.insert(to_string(c)).second) << to_string(c);
    EXPECT_TRUE(prose.insert(describe(c)).second) << describe(c);
    EXPECT_FALSE(rule_of(c).empty()) << to_string(c);
    EXPECT_EQ(parse_limit_cause(to_string(c)), c);
  }
  EXPECT_EQ(parse_limit_cause("no_such_cause"), std::nullopt);
  EXPECT_EQ(std::tuple_size_v<CauseTimes>, kLimitCauseCount);
}

TEST(Vocabulary, EveryStallKindHasOneRowCountedTowardACause) {
  std::set<std::string_view> keys, labels;
  for (std::size_t i = 0; i < kStallKindCount; ++i) {
    const StallKindRow& r = kStallKindTable[i];
    EXPECT_EQ(static_cast<std::size_t>(r.kind), i);
    EXPECT_TRUE(keys.insert(to_string(r.kind)).second) << r.key;
    EXPECT_TRUE(labels.insert(label_of(r.kind)).second) << r.label;
    // The label is the key spelled with hyphens: the simulator's reports and the scanner's JSON
    // name one kind alike.
    std::string hyphens(r.key);
    for (char& c : hyphens) c = c == '_' ? '-' : c;
    EXPECT_EQ(r.label, hyphens);
    EXPECT_FALSE(describe(r.kind).empty()) << r.key;
    EXPECT_LT(static_cast<std::size_t>(cause_of(r.kind)), kLimitCauseCount) << r.key;
    EXPECT_TRUE(seen_by(r.kind, StallObserver::simulator) || seen_by(r.kind, StallObserver::scanner)) << r.key;
    EXPECT_EQ(parse_stall_kind(r.key), r.kind);
    EXPECT_EQ(parse_stall_kind(r.label), r.kind);
  }
  EXPECT_EQ(parse_stall_kind("no-such-kind"), std::nullopt);
}

TEST(Vocabulary, EachObserversKindsAreTheTableRowsItSeesInTableOrder) {
  std::size_t sim = 0, scan = 0;
  for (const auto& r : kStallKindTable) {
    if (seen_by(r.kind, StallObserver::simulator)) {
      ASSERT_LT(sim, kSimulatorStallKinds.size());
      EXPECT_EQ(kSimulatorStallKinds[sim++], r.kind);
    }
    if (seen_by(r.kind, StallObserver::scanner)) {
      ASSERT_LT(scan, kScannerStallKinds.size());
      EXPECT_EQ(kScannerStallKinds[scan++], r.kind);
    }
  }
  EXPECT_EQ(sim, kSimulatorStallKinds.size());
  EXPECT_EQ(scan, kScannerStallKinds.size());
  // A delayed ACK is the one kind both sides name: the mechanism this project is about.
  EXPECT_TRUE(seen_by(StallKind::delayed_ack, StallObserver::both));
  EXPECT_EQ(cause_of(StallKind::delayed_ack), LimitCause::delayed_ack);
}

}  // namespace
}  // namespace ackstall::core
