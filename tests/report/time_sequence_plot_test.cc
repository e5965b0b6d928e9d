// The time-sequence graph's time window (`sim --plot-window`, `scan --plot-window`): core's
// duration grammar or plain seconds, FROM..TO with either end left open.
#include "ackstall/report/time_sequence_plot.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>

namespace ackstall::report {
namespace {

TEST(PlotWindow, TakesPlainSecondsOrDurations) {
  for (const char* text : {"1..2", "1s..2s", "1000ms..2s", "1.0..2"}) {
    const auto w = parse_plot_window(text);
    ASSERT_TRUE(w) << text << ": " << w.error().message();
    EXPECT_EQ(w->from, std::chrono::seconds(1)) << text;
    EXPECT_EQ(w->to, std::chrono::seconds(2)) << text;
  }
  EXPECT_EQ(parse_plot_window("0.5..")->to, std::nullopt);
  EXPECT_EQ(parse_plot_window("..0.5")->to, std::chrono::milliseconds(500));
  for (const char* bad : {"1", "2..1", "1x..2", "-1..2", "1..2..3"}) EXPECT_FALSE(parse_plot_window(bad)) << bad;
}

}  // namespace
}  // namespace ackstall::report
