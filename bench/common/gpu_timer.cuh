// Timing for the benchmark drivers: CUDA events around the timed work, after
// warm-ups, the median of several runs (METHOD: warm up, time with events,
// take medians).
#pragma once

#include <vector>

#include <cuda_runtime_api.h>

#include "apps/common/trial_loop.hpp"
#include "primitives/common/cuda_event.hpp"

namespace graphkit::bench {

class gpu_timer {
 public:
  /// Milliseconds of one run of `body` (work it enqueues on the default stream).
  template <class Body>
  double once_ms(Body&& body) {
    start_.record();
    body();
    stop_.record();
    return stop_.seconds_since(start_) * 1e3;
  }

  /// Median of `reps` timed runs (the apps' trial loop) after `warmups`
  /// untimed ones; `prepare` runs untimed before each (to reset state the
  /// body consumes).
  template <class Body, class Prepare>
  double median_ms(int reps, Body&& body, Prepare&& prepare, int warmups = 2) {
    for (int w = 0; w < warmups; ++w) {
      prepare();
      (void)once_ms(body);
    }
    return apps::measure_trials(
               apps::trial_settings{reps}, 1, false, [&] { return std::vector<double>{once_ms(body)}; }, prepare)
        .median_phase(0);
  }
  template <class Body>
  double median_ms(int reps, Body&& body) {
    return median_ms(reps, body, [] {});
  }

 private:
  cuda_event start_, stop_;
};

}  // namespace graphkit::bench
