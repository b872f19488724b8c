// Kernel-launch plumbing shared by every .cu file: how many blocks cover n
// items or fill the device, and reading one value back from the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "primitives/common/error.hpp"

namespace graphkit {

/// Blocks of `block` threads that cover `n` items, one item per thread.
inline unsigned blocks_for(std::size_t n, unsigned block = 256) {
  return static_cast<unsigned>((n + block - 1) / block);
}

/// Attribute `Attribute` of the current device (asked once per device).
template <cudaDeviceAttr Attribute>
int current_device_attribute() {
  static thread_local int cached_device = -1;
  static thread_local int cached_value = 0;
  int device = 0;
  GRAPHKIT_CUDA_TRY(cudaGetDevice(&device));
  if (device != cached_device) {
    GRAPHKIT_CUDA_TRY(cudaDeviceGetAttribute(&cached_value, Attribute, device));
    cached_device = device;
  }
  return cached_value;
}

/// Multiprocessors of the current device.
inline unsigned device_sm_count() {
  return static_cast<unsigned>(current_device_attribute<cudaDevAttrMultiProcessorCount>());
}

/// Whether the current device launches thread-block clusters (sm_90 and later).
inline bool device_launches_clusters() { return current_device_attribute<cudaDevAttrClusterLaunch>() != 0; }

/// Blocks for a grid-stride loop over n items: one item per thread, but no
/// more than `per_sm` blocks per multiprocessor of this device (at least 1).
inline unsigned grid_stride_blocks(std::size_t n, unsigned block = 256, unsigned per_sm = 32) {
  const std::size_t cap = std::size_t{device_sm_count()} * per_sm;
  const std::size_t blocks = (n + block - 1) / block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
}

/// Blocks of `threads` threads (with `dynamic_smem` bytes each) that `kernel`
/// keeps resident on one multiprocessor, at least 1: a persistent grid's wave.
template <class Kernel>
unsigned resident_blocks_per_sm(Kernel* kernel, int threads, std::size_t dynamic_smem = 0) {
  int blocks = 0;
  GRAPHKIT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(kernel),
                                                                  threads, dynamic_smem));
  return blocks < 1 ? 1u : static_cast<unsigned>(blocks);
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
