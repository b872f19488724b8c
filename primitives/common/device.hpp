// Whether a usable CUDA device exists, and what it is. Lets host code (apps,
// tests) choose or skip the GPU path without failing on GPU-less machines.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace graphkit {

/// Number of usable CUDA devices; 0 (never an exception) where there is no
/// driver or no device, since that is a normal state for CI machines.
inline int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

/// Why there is no device, in words, for skip messages; empty when there is one.
inline std::string cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no CUDA device: ") + cudaGetErrorString(status);
  }
  return count == 0 ? "no CUDA device present" : "";
}

}  // namespace graphkit
