// The delay vocabulary (delay.h): grammar, canonical text, draws in the RNG order of the model
// code it replaced.
#include "ackstall/sim/delay.h"

#include <gtest/gtest.h>

#include <vector>

namespace ackstall::sim {
namespace {

Delay parse(std::string_view s) {
  auto d = Delay::parse(s);
  EXPECT_TRUE(d.has_value()) << s << ": " << (d ? std::string() : d.error().message());
  return d ? *d : Delay();
}

std::string error(std::string_view s) {
  auto d = Delay::parse(s);
  EXPECT_FALSE(d.has_value()) << s;
  return d ? std::string() : d.error().message();
}

TEST(Delay, ParsesEveryTermAndPrintsCanonically) {
  EXPECT_TRUE(parse("none").none());
  EXPECT_TRUE(parse("0").none());
  EXPECT_TRUE(parse("  0us + exp(0us) ").none());  // terms that add nothing are dropped
  EXPECT_EQ(parse("15us").to_string(), "15us");
  EXPECT_EQ(parse("15us+exp(30us)+120ppm*(171us+exp(250us))").to_string(),
            "15us + exp(30us) + 120ppm * (171us + exp(250us))");
  EXPECT_EQ(parse("quantiles(1us,5us, 40us)").to_string(), "quantiles(1us, 5us, 40us)");
  EXPECT_EQ(parse("trace( 0us , 19us,1ms)").to_string(), "trace(0ns, 19us, 1ms)");
  EXPECT_EQ(parse("200us + uniform(50us)").to_string(), "200us + uniform(50us)");
  EXPECT_EQ(parse("5ppm * 1ms").to_string(), "5ppm * (1ms)");
  EXPECT_EQ(parse("5ppm * (none)").to_string(), "5ppm * (none)");
  for (const char* s : {"15us + exp(30us) + 120ppm * (171us + exp(250us))", "quantiles(1us, 5us, 40us)",
                        "trace(0ns, 19us)", "2us + uniform(3us) + 7ppm * (quantiles(1us, 2ms))"}) {
    EXPECT_EQ(parse(parse(s).to_string()), parse(s)) << s;
  }
}

TEST(Delay, ErrorsAreOneLineAndSayWhere) {
  EXPECT_NE(error("15").find("duration"), std::string::npos);
  EXPECT_NE(error("exp 30us").find("expected \"(\" after exp"), std::string::npos);
  EXPECT_NE(error("exp(30us, 2us)").find("exp() takes one duration"), std::string::npos);
  EXPECT_NE(error("quantiles(1us,").find("expected a duration"), std::string::npos);
  EXPECT_NE(error("15us 2us").find("at column 6: expected \"+\" or the end"), std::string::npos);
  EXPECT_NE(error("1ppm * (2ppm * 1us)").find("cannot hold another"), std::string::npos);
  EXPECT_NE(error("2000000ppm * 1us").find("ppm must be an integer 0..1000000"), std::string::npos);
  EXPECT_NE(error("+").find("expected a duration, uniform()"), std::string::npos);
  EXPECT_NE(error("").find("expected a duration"), std::string::npos);
  for (const char* s : {"15", "exp(", "1ppm *", "trace()", "quantiles(1us,,2us)"})
    EXPECT_EQ(error(s).find('\n'), std::string::npos) << s;
}

TEST(Delay, CheckStatesTheRule) {
  EXPECT_EQ(parse("15us + quantiles(1us, 2us)").check(Nanos::s(1)), "");
  EXPECT_NE(parse("quantiles(1us)").check(Nanos::s(1)).find("2..101"), std::string::npos);
  EXPECT_NE(parse("quantiles(2us, 1us)").check(Nanos::s(1)).find("rise"), std::string::npos);
  EXPECT_NE(parse("2s").check(Nanos::s(1)).find("[0, 1s]"), std::string::npos);
  EXPECT_NE(parse("1ppm * trace(2s)").check(Nanos::s(1)).find("[0, 1s]"), std::string::npos);
}

// The reader's wake-up as app_ttcp.h drew it before Delay: read_quantiles, then read_latency +
// exponential(read_jitter); a late wake-up for read_late_ppm: below(1e6), then the late
// quantiles, then read_late_latency + exponential(read_late_jitter).
Nanos old_reader(Rng& rng, const std::vector<Nanos>& rq, Nanos lat, Nanos jit, std::int64_t ppm,
                 const std::vector<Nanos>& lq, Nanos late_lat, Nanos late_jit) {
  const Nanos on_time = from_quantiles(rng, rq);
  Nanos at = lat + exponential(rng, jit) + on_time;
  if (ppm > 0 && rng.below(1'000'000) < static_cast<std::uint64_t>(ppm)) {
    const Nanos spread = from_quantiles(rng, lq);
    at += late_lat + exponential(rng, late_jit) + spread;
  }
  return at;
}

TEST(Delay, DrawsAsTheModelDidBefore) {
  const std::vector<Nanos> rq{Nanos::us(4), Nanos::us(13), Nanos::us(50)};
  const std::vector<Nanos> lq{Nanos::us(150), Nanos::us(300), Nanos::us(2500)};
  // The order the scenario's old keys build it in (Delay::with), whatever order they were set.
  Delay d = Delay(Nanos::us(15))
                .with({.kind = DelayKind::rare, .ppm = 200'000})
                .with({.kind = DelayKind::exponential, .value = Nanos::us(30)})
                .with({.kind = DelayKind::quantiles, .points = rq});
  DelayTerm rare = *d.find(DelayKind::rare);
  const Delay inner = Delay()
                          .with({.kind = DelayKind::exponential, .value = Nanos::us(250)})
                          .with({.kind = DelayKind::constant, .value = Nanos::us(171)})
                          .with({.kind = DelayKind::quantiles, .points = lq});
  rare.terms.assign(inner.terms().begin(), inner.terms().end());
  d = d.with(rare);
  EXPECT_EQ(d.to_string(),
            "quantiles(4us, 13us, 50us) + 15us + exp(30us) + 200000ppm * (quantiles(150us, 300us, 2500us) + "
            "171us + exp(250us))");
  Rng a(7), b(7);
  for (int i = 0; i < 10000; ++i)
    ASSERT_EQ(d.draw(a), old_reader(b, rq, Nanos::us(15), Nanos::us(30), 200'000, lq, Nanos::us(171), Nanos::us(250)));
  EXPECT_EQ(a.next(), b.next());

  // The transmitter's: wakeup_latency + uniform(wakeup_jitter).
  Delay w = parse("200us + uniform(50us)");
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(w.draw(a), Nanos::us(200) + b.uniform(Nanos::us(50)));
  EXPECT_EQ(a.next(), b.next());
}

TEST(Delay, NoDrawWithoutRandomTerms) {
  Rng a(3), b(3);
  Delay d = parse("15us + trace(1us, 2us, 3us) + 0ppm * (exp(1ms))");
  EXPECT_EQ(d.draw(a), Nanos::us(16));
  EXPECT_EQ(d.draw(a), Nanos::us(17));
  EXPECT_EQ(d.draw(a), Nanos::us(18));
  EXPECT_EQ(d.draw(a), Nanos::us(16));  // cyclic
  EXPECT_EQ(a.next(), b.next());
}

TEST(Delay, RareEventsComeAtTheirRate) {
  Delay d = parse("100000ppm * 1ms");
  Rng rng(11);
  int late = 0;
  for (int i = 0; i < 100000; ++i) late += d.draw(rng) == Nanos::ms(1);
  EXPECT_NEAR(late, 10000, 400);
}

TEST(Delay, WithReplacesOrRemovesATerm) {
  const Delay d = parse("15us + exp(30us)");
  EXPECT_EQ(d.with({.kind = DelayKind::constant, .value = Nanos::us(20)}).to_string(), "20us + exp(30us)");
  EXPECT_EQ(d.with({.kind = DelayKind::exponential}).to_string(), "15us");
  EXPECT_EQ(d.with({.kind = DelayKind::uniform, .value = Nanos::us(5)}).to_string(), "15us + uniform(5us) + exp(30us)");
}

// fixed(): a constant delay's one value (what every draw returns); mean(): the expected draw, for
// analytical uses; least(): the smallest draw.
TEST(Delay, FixedMeanAndLeast) {
  const auto d = [](const char* t) { return Delay::parse(t).value(); };
  EXPECT_EQ(d("none").fixed(), Nanos::zero());
  EXPECT_EQ(d("60us").fixed(), Nanos::us(60));
  EXPECT_EQ(d("60us + 2us").fixed(), Nanos::us(62));
  EXPECT_FALSE(d("60us + exp(1us)").fixed());
  EXPECT_FALSE(d("trace(1us)").fixed());
  EXPECT_EQ(d("10us + uniform(8us) + exp(3us)").mean(), Nanos::us(17));
  EXPECT_EQ(d("quantiles(0us, 10us, 40us)").mean(), Nanos::us(15));  // (5 + 25) / 2
  EXPECT_EQ(d("trace(1us, 2us, 6us)").mean(), Nanos::us(3));
  EXPECT_EQ(d("1000ppm * (1ms + exp(1ms))").mean(), Nanos::us(2));
  EXPECT_EQ(d("5us + quantiles(2us, 9us) + trace(4us, 3us) + exp(1s) + 5ppm * 1s").least(), Nanos::us(10));
  // The mean of many draws comes near mean().
  Delay q = d("quantiles(0us, 10us, 40us) + uniform(8us)");
  Rng rng(5);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) sum += static_cast<double>(q.draw(rng).count());
  EXPECT_NEAR(sum / 100000, static_cast<double>(q.mean().count()), 200.0);
}

}  // namespace
}  // namespace ackstall::sim
