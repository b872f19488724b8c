// Kernel-launch plumbing shared by every .cu file: how many blocks cover n
// items, and reading one value back from the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "primitives/common/error.hpp"

namespace graphkit {

/// Blocks of `block` threads that cover `n` items, one item per thread.
inline unsigned blocks_for(std::size_t n, unsigned block = 256) {
  return static_cast<unsigned>((n + block - 1) / block);
}

/// One value copied back from device memory (waits for `stream`).
template <class T>
T read_one(const T* device_value, cudaStream_t stream = nullptr) {
  T value{};
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(&value, device_value, sizeof value, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return value;
}

}  // namespace graphkit
