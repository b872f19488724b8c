// The measuring loop the apps and the benches share (after GAPBS's
// BenchmarkKernel): an untimed warm-up where wanted, then timed trials, each
// after an untimed prepare(), and one median per phase. An app and its bench
// that call it with the same --trials time the same runs and report the
// same figures. Header-only and free of the report, so that every bench can
// use it; apps/common/trials.hpp puts its medians into an app's report.
#pragma once

#include <chrono>
#include <cstddef>
#include <iostream>
#include <numeric>
#include <span>
#include <vector>

#include "primitives/common/error.hpp"
#include "primitives/common/median.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit::apps {

/// What the loop takes from a command line: --trials and -v.
struct trial_settings {
  int trials = 1;
  bool verbose = false;  ///< print each trial's total
};

/// A warm-up run only when several trials are timed (a benchmark): a single
/// trial is the answer itself, which the user waits for, so it runs once and
/// its time includes the first launches (a full warm-up would add R-MAT 21's
/// 57 ms to tricount's 0.5 s process).
inline bool warm_up_wanted(int trials) { return trials > 1; }

/// Runs `body` `trials` times inside an NVTX "run" range; returns each time in seconds.
template <class Body>
std::vector<double> time_trials(int trials, Body&& body) {
  std::vector<double> seconds;
  for (int t = 0; t < trials; ++t) {
    nvtx_range range("run");
    const auto start = std::chrono::steady_clock::now();
    body();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

/// Seconds of one call of body() by the host clock, inside an NVTX "run" range.
template <class Body>
double host_seconds(Body&& body) {
  return time_trials(1, body)[0];
}

/// Every timed trial's seconds per phase, and their medians.
class trial_times {
 public:
  void add(std::vector<double> phases) { trials_.push_back(std::move(phases)); }
  [[nodiscard]] std::size_t size() const noexcept { return trials_.size(); }

  /// The median over trials of what `of` makes of one trial's phases.
  template <class Of>
  [[nodiscard]] double median_of(Of&& of) const {
    std::vector<double> samples;
    for (const std::vector<double>& t : trials_) samples.push_back(of(t));
    return median(std::move(samples));
  }
  /// The median of phase `p`.
  [[nodiscard]] double median_phase(std::size_t p) const {
    return median_of([p](const std::vector<double>& t) { return t[p]; });
  }
  /// The median of the trials' totals (the sum of their phases).
  [[nodiscard]] double median_total() const { return median(totals()); }
  [[nodiscard]] std::vector<double> totals() const {
    std::vector<double> sums;
    for (const std::vector<double>& t : trials_) sums.push_back(std::accumulate(t.begin(), t.end(), 0.0));
    return sums;
  }

 private:
  std::vector<std::vector<double>> trials_;
};

/// One warm-up run where `warm_up` (and warm_up_wanted), then s.trials timed
/// runs, each after prepare(); run() returns one time in seconds per phase
/// (`phases` of them).
template <class Run, class Prepare>
trial_times measure_trials(const trial_settings& s, std::size_t phases, bool warm_up, Run&& run, Prepare&& prepare) {
  if (warm_up && warm_up_wanted(s.trials)) {
    prepare();
    (void)run();
  }
  trial_times times;
  for (int t = 0; t < s.trials; ++t) {
    prepare();
    std::vector<double> seconds = run();
    GRAPHKIT_EXPECTS(seconds.size() == phases, "measure_trials: one time per phase");
    if (s.verbose)
      std::cout << "trial " << t << ": " << std::accumulate(seconds.begin(), seconds.end(), 0.0) * 1e3 << " ms\n";
    times.add(std::move(seconds));
  }
  return times;
}

template <class Run>
trial_times measure_trials(const trial_settings& s, std::size_t phases, bool warm_up, Run&& run) {
  return measure_trials(s, phases, warm_up, run, [] {});
}

/// The median seconds of body() by the host clock over s.trials runs, after
/// a warm-up where wanted: a bench's timing of one host call.
template <class Body>
double median_host_seconds(const trial_settings& s, Body&& body) {
  return measure_trials(s, 1, true, [&] { return std::vector<double>{host_seconds(body)}; }).median_phase(0);
}

/// sssp's shape: s.trials timed solves from each source (one warm-up before
/// the first, where `warm_up` and warm_up_wanted), and after each source's
/// trials done(i, its median seconds), which may read the solve's answer
/// (the last trial's). solve(source) returns its seconds. Returns each
/// source's median: the report's and the bench's time is their median.
template <class Source, class Solve, class Done>
std::vector<double> source_medians(const trial_settings& s, std::span<const Source> sources, bool warm_up,
                                   Solve&& solve, Done&& done) {
  std::vector<double> medians;
  const trial_settings quiet{s.trials, false};  // done() speaks for each source
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const trial_times times =
        measure_trials(quiet, 1, warm_up && i == 0, [&] { return std::vector<double>{solve(sources[i])}; });
    medians.push_back(times.median_phase(0));
    done(i, medians.back());
  }
  return medians;
}

}  // namespace graphkit::apps
