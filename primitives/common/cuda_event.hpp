// A CUDA event with RAII, and the time between two of them: how the GPU apps
// and the benchmarks time device work (events measure the stream, not the
// host's view of it).
#pragma once

#include <cuda_runtime_api.h>

#include "primitives/common/error.hpp"

namespace graphkit {

class cuda_event {
 public:
  cuda_event() { GRAPHKIT_CUDA_TRY(cudaEventCreate(&event_)); }
  ~cuda_event() { cudaEventDestroy(event_); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;

  void record(cudaStream_t stream = nullptr) { GRAPHKIT_CUDA_TRY(cudaEventRecord(event_, stream)); }
  /// Waits until the work recorded before this event has finished (at once if never recorded).
  void synchronize() const { GRAPHKIT_CUDA_TRY(cudaEventSynchronize(event_)); }
  /// Makes work enqueued on `stream` from now on wait for the work recorded
  /// before this event, without blocking the host (nothing, if never recorded).
  void enqueue_wait(cudaStream_t stream) const { GRAPHKIT_CUDA_TRY(cudaStreamWaitEvent(stream, event_, 0)); }

  /// Seconds from `earlier` to this event; waits for this one to complete.
  [[nodiscard]] double seconds_since(const cuda_event& earlier) const {
    GRAPHKIT_CUDA_TRY(cudaEventSynchronize(event_));
    float ms = 0;
    GRAPHKIT_CUDA_TRY(cudaEventElapsedTime(&ms, earlier.event_, event_));
    return ms / 1e3;
  }

 private:
  cudaEvent_t event_{};
};

}  // namespace graphkit
