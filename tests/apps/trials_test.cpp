// The apps' trial loop (apps/common/trials.hpp): warm-up, prepare before
// every run, one median per named phase, totals per trial.
#include <gtest/gtest.h>

#include <span>
#include <utility>

#include "apps/common/trials.hpp"

namespace graphkit::apps {
namespace {

TEST(Trials, WarmUpPrepareAndOneMedianPerPhase) {
  report r("test");
  common_options o;
  o.trials = 4;
  int prepared = 0, ran = 0;
  // Trial t (the warm-up is run 0) takes t + 1 and 10 (t + 1) seconds.
  const std::vector<double> totals = run_trials(
      r, o, {{"first", "second"}, true},
      [&] {
        ++ran;
        return std::vector<double>{double(ran), 10.0 * ran};
      },
      [&] { ++prepared; });
  EXPECT_EQ(ran, 5);
  EXPECT_EQ(prepared, 5);
  EXPECT_EQ(totals, (std::vector<double>{22, 33, 44, 55}));
  EXPECT_DOUBLE_EQ(r.phase_seconds("first"), 3.5);  // median of 2, 3, 4, 5
  EXPECT_DOUBLE_EQ(r.phase_seconds("second"), 35.0);
}

TEST(Trials, OneTrialRunsOnceWithoutItsWarmUp) {
  report r("test");
  common_options o;
  o.trials = 1;
  int ran = 0;
  run_trials(r, o, {{"run"}, true}, [&] { return std::vector<double>{double(++ran)}; });
  EXPECT_EQ(ran, 1);
  EXPECT_DOUBLE_EQ(r.phase_seconds("run"), 1.0);
}

TEST(Trials, NoWarmUpAndNoPrepare) {
  report r("test");
  common_options o;
  o.trials = 3;
  int ran = 0;
  run_trials(r, o, {{"run"}, false}, [&] { return std::vector<double>{double(++ran)}; });
  EXPECT_EQ(ran, 3);
  EXPECT_DOUBLE_EQ(r.phase_seconds("run"), 2.0);
}

TEST(Trials, MediansOfPhasesTotalsAndAnyMeasureOfATrial) {
  int ran = 0;
  // Trial t takes (t, 10 - t): totals all 10, phases spread.
  const trial_times times = measure_trials(trial_settings{5}, 2, false, [&] {
    ++ran;
    return std::vector<double>{double(ran), 10.0 - ran};
  });
  EXPECT_EQ(ran, 5);
  EXPECT_EQ(times.size(), 5u);
  EXPECT_DOUBLE_EQ(times.median_phase(0), 3.0);
  EXPECT_DOUBLE_EQ(times.median_phase(1), 7.0);
  EXPECT_DOUBLE_EQ(times.median_total(), 10.0);
  EXPECT_DOUBLE_EQ(times.median_of([](const std::vector<double>& t) { return t[0] * t[1]; }), 21.0);  // 9 16 21 24 25
}

// sssp's shape: one warm-up before the first source, the trials of each
// source, done() after each with that source's median; the same loop for the
// app and sssp_bench.
TEST(Trials, SourceMediansWarmUpOnceAndTimeEachSource) {
  const std::vector<int> sources{10, 20, 30};
  std::vector<int> solved;
  std::vector<std::pair<std::size_t, double>> done;
  int call = 0;
  const std::vector<double> medians = source_medians(
      trial_settings{3}, std::span<const int>(sources), true,
      [&](int s) {
        solved.push_back(s);
        return double(s + (call++ % 3));  // the warm-up's call shifts the first source's times
      },
      [&](std::size_t i, double median_seconds) { done.emplace_back(i, median_seconds); });
  EXPECT_EQ(solved, (std::vector<int>{10, 10, 10, 10, 20, 20, 20, 30, 30, 30}));
  EXPECT_EQ(medians, (std::vector<double>{11, 21, 31}));
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[2], (std::pair<std::size_t, double>{2, 31}));

  solved.clear();
  (void)source_medians(
      trial_settings{1}, std::span<const int>(sources), true,
      [&](int s) {
        solved.push_back(s);
        return 0.0;
      },
      [](std::size_t, double) {});
  EXPECT_EQ(solved, (std::vector<int>{10, 20, 30})) << "one trial: no warm-up";
}

TEST(Trials, OutputAndValidatePhasesOnlyWhenAsked) {
  report r("test");
  common_options o;
  bool wrote = false, checked = false;
  output_phase(r, "", [&] { wrote = true; });
  validate_phase(r, o, [&] {
    checked = true;
    return verification{};
  });
  EXPECT_FALSE(wrote);
  EXPECT_FALSE(checked);
  o.validate = true;
  output_phase(r, "somewhere", [&] { wrote = true; });
  validate_phase(r, o, [&] {
    checked = true;
    return verification{};
  });
  EXPECT_TRUE(wrote);
  EXPECT_TRUE(checked);
}

}  // namespace
}  // namespace graphkit::apps
