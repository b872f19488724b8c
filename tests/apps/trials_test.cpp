// The apps' trial loop (apps/common/trials.hpp): warm-up, prepare before
// every run, one median per named phase, totals per trial.
#include <gtest/gtest.h>

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
