// Programmatic dependent launch (sm_90 and later): a kernel launched
// chained may start while the kernel before it in the stream finishes, so
// that a chain of short or gated kernels (block_wide_spread's choice and
// the post-scans it does not choose) does not pay a launch gap each. A
// chained kernel's blocks call wait_for_prior_grid before they read or
// write anything that earlier work touches; a kernel may call
// let_next_grid_start to let the next one's blocks launch before its own
// blocks exit. Elsewhere both are no-ops and the launch is a plain one.
// Measured (H100, session 32, bench/NOTES.md multisplit step 38): chained
// from the matrix scan to the last post-scan, block_wide_spread's keys ran
// 0.5-1% faster (uniform m = 129 1.637 -> 1.624 ms); with the persistent
// post-scans also letting the next one start early, uniform pairs at m =
// 256 lost 4% (1.244 -> 1.290), so they only wait.
#pragma once

#include <cuda_runtime.h>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {

/// Waits until the grid this one was chained to has completed and its
/// writes (and, through its own wait, those of every grid before it) are
/// visible. Returns at once in a grid launched plainly.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next grid, where it was launched chained, start once every
/// block of this one has called this or exited. Safe anywhere: the next
/// grid still waits for this one to complete before it touches memory.
__device__ __forceinline__ void let_next_grid_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// The opening of a kernel in a chain of them: lets the next one launch,
/// then waits for the previous one.
__device__ __forceinline__ void open_chained_grid() {
  let_next_grid_start();
  wait_for_prior_grid();
}

/// Whether the current device takes chained launches (sm_90 and later).
inline bool device_chains_launches() { return current_device_attribute<cudaDevAttrComputeCapabilityMajor>() >= 9; }

/// The launch attribute that chains a launch to the stream's previous kernel.
inline cudaLaunchAttribute chained_launch_attribute() {
  cudaLaunchAttribute chained{};
  chained.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  chained.val.programmaticStreamSerializationAllowed = 1;
  return chained;
}

/// kernel<<<grid, block, 0, stream>>>(args...), chained to the stream's
/// previous kernel where the device allows it (plain elsewhere). The kernel
/// calls wait_for_prior_grid first.
template <class... Params, class... Args>
void launch_chained(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream, Args... args) {
  cudaLaunchAttribute chained = chained_launch_attribute();
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.stream = stream;
  config.attrs = &chained;
  config.numAttrs = device_chains_launches() ? 1 : 0;
  GRAPHKIT_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
  GRAPHKIT_CHECK_LAUNCH();
}

}  // namespace graphkit
