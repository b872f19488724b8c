// The apps' measuring loop (apps/common/trial_loop.hpp, which the benches
// share) tied to an app's report: an untimed warm-up run where asked (on the
// GPU: module loads, first touches, scratch pools) and more than one trial is
// timed, then --trials timed runs, each after an untimed prepare() (a fresh
// copy of the input, say); every phase a run reports goes into the report as
// its median over the trials, and -v prints each trial. Output and validation
// are phases of their own, named the same in every app.
#pragma once

#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

#include "apps/common/options.hpp"
#include "apps/common/report.hpp"
#include "apps/common/trial_loop.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::apps {

/// The loop's settings from an app's command line.
inline trial_settings settings_of(const common_options& o) { return {o.trials, o.verbose}; }
inline bool warm_up_wanted(const common_options& o) { return warm_up_wanted(o.trials); }

struct trial_plan {
  std::vector<std::string> phases{"run"};  ///< what each run() returns, in order
  bool warm_up = true;                     ///< one untimed run first, where warm_up_wanted()
};

/// Runs the trials (measure_trials); run() returns one time in seconds per
/// plan.phases entry, and each phase's median goes into the report.
/// Returns each trial's total (the sum of its phases).
template <class Run, class Prepare>
std::vector<double> run_trials(report& r, const common_options& o, const trial_plan& plan, Run&& run,
                               Prepare&& prepare) {
  const trial_times times = measure_trials(settings_of(o), plan.phases.size(), plan.warm_up, run, prepare);
  for (std::size_t p = 0; p < plan.phases.size(); ++p) r.add_phase(plan.phases[p], times.median_phase(p));
  return times.totals();
}

template <class Run>
std::vector<double> run_trials(report& r, const common_options& o, const trial_plan& plan, Run&& run) {
  return run_trials(r, o, plan, run, [] {});
}

/// The "output" phase: write() when the user asked for a file.
template <class Write>
void output_phase(report& r, const std::string& path, Write&& write) {
  if (path.empty()) return;
  phase_timer timer(r, "output");
  write();
}

/// The "validate" phase: check() returns the verification, when --validate.
template <class Check>
void validate_phase(report& r, const common_options& o, Check&& check) {
  if (!o.validate) return;
  verification v;
  {
    phase_timer timer(r, "validate");
    v = check();
  }
  r.set_validation(std::move(v));
}

}  // namespace graphkit::apps
