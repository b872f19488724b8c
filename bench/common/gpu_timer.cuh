// Timing for the benchmark drivers: CUDA events around the timed work, after
// warm-ups, the median of several runs (METHOD: warm up, time with events,
// take medians).
#pragma once

#include <algorithm>
#include <vector>

#include <cuda_runtime_api.h>

#include "primitives/common/error.hpp"

namespace graphkit::bench {

class gpu_timer {
 public:
  gpu_timer() {
    GRAPHKIT_CUDA_TRY(cudaEventCreate(&start_));
    GRAPHKIT_CUDA_TRY(cudaEventCreate(&stop_));
  }
  gpu_timer(const gpu_timer&) = delete;
  gpu_timer& operator=(const gpu_timer&) = delete;
  ~gpu_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  /// Milliseconds of one run of `body` (work it enqueues on the default stream).
  template <class Body>
  double once_ms(Body&& body) {
    GRAPHKIT_CUDA_TRY(cudaEventRecord(start_));
    body();
    GRAPHKIT_CUDA_TRY(cudaEventRecord(stop_));
    GRAPHKIT_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    GRAPHKIT_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

  /// Median of `reps` timed runs after `warmups` untimed ones; `prepare` runs
  /// untimed before each (to reset state the body consumes).
  template <class Body, class Prepare>
  double median_ms(int reps, Body&& body, Prepare&& prepare, int warmups = 2) {
    std::vector<double> ms;
    for (int r = -warmups; r < reps; ++r) {
      prepare();
      const double t = once_ms(body);
      if (r >= 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
  template <class Body>
  double median_ms(int reps, Body&& body) {
    return median_ms(reps, body, [] {});
  }

 private:
  cudaEvent_t start_, stop_;
};

}  // namespace graphkit::bench
