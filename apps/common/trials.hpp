// The apps' measuring loop, in one place (after GAPBS's BenchmarkKernel): an
// untimed warm-up run where asked (on the GPU: module loads, first touches,
// scratch pools) and more than one trial is timed, then --trials timed runs, each after an untimed prepare()
// (a fresh copy of the input, say); every phase a run reports goes into the
// report as its median over the trials, and -v prints each trial. Output and
// validation are phases of their own, named the same in every app.
#pragma once

#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

#include "apps/common/options.hpp"
#include "apps/common/report.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::apps {

/// Seconds of one call of body() by the host clock, inside an NVTX "run" range.
template <class Body>
double host_seconds(Body&& body) {
  return time_trials(1, body)[0];
}

/// A warm-up run only when the user times several trials (a benchmark): a
/// single trial is the answer itself, which the user waits for, so it runs
/// once and its time includes the first launches (a full warm-up count
/// would add R-MAT 21's 57 ms to tricount's 0.5 s process).
inline bool warm_up_wanted(const common_options& o) { return o.trials > 1; }

struct trial_plan {
  std::vector<std::string> phases{"run"};  ///< what each run() returns, in order
  bool warm_up = true;                     ///< one untimed run first, where warm_up_wanted()
};

/// Runs the trials; run() returns one time in seconds per plan.phases entry.
/// Returns each trial's total (the sum of its phases).
template <class Run, class Prepare>
std::vector<double> run_trials(report& r, const common_options& o, const trial_plan& plan, Run&& run,
                               Prepare&& prepare) {
  if (plan.warm_up && warm_up_wanted(o)) {
    prepare();
    (void)run();
  }
  std::vector<std::vector<double>> by_phase(plan.phases.size());
  std::vector<double> totals;
  for (int t = 0; t < o.trials; ++t) {
    prepare();
    const std::vector<double> times = run();
    GRAPHKIT_EXPECTS(times.size() == plan.phases.size(), "run_trials: one time per named phase");
    double total = 0;
    for (std::size_t p = 0; p < times.size(); ++p) by_phase[p].push_back(times[p]), total += times[p];
    totals.push_back(total);
    if (o.verbose) std::cout << "trial " << t << ": " << total * 1e3 << " ms\n";
  }
  for (std::size_t p = 0; p < plan.phases.size(); ++p) r.add_phase(plan.phases[p], median(by_phase[p]));
  return totals;
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
