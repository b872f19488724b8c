// RAII ownership of device memory. Apps never call cudaMalloc themselves: an
// allocation failure here becomes an error naming the size and free memory.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "primitives/common/error.hpp"

namespace graphkit {

/// Bytes held by every device_buffer of the process, now and at most so far:
/// the apps report the peak (allocations by CUB and Thrust through
/// device_buffer count; the CUDA context's own memory does not).
struct device_memory_usage {
  std::size_t current = 0, peak = 0;
};
namespace detail {
inline std::atomic<std::size_t> g_device_bytes{0}, g_device_peak{0};
inline void count_device_bytes(std::size_t bytes, bool added) noexcept {
  if (!added) {
    g_device_bytes.fetch_sub(bytes, std::memory_order_relaxed);
    return;
  }
  const std::size_t now = g_device_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::size_t peak = g_device_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_device_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}
}  // namespace detail
inline device_memory_usage device_memory_in_use() noexcept {
  return {detail::g_device_bytes.load(std::memory_order_relaxed),
          detail::g_device_peak.load(std::memory_order_relaxed)};
}
/// Starts the peak over from what is in use now, so that a step's own peak
/// can be measured (the memory-rule tests do); returns the usage before.
inline device_memory_usage restart_device_memory_peak() noexcept {
  const device_memory_usage before = device_memory_in_use();
  detail::g_device_peak.store(before.current, std::memory_order_relaxed);
  return before;
}

/// Thrown when the device cannot hold what was asked for.
class device_memory_error : public resource_error {
 public:
  using resource_error::resource_error;
};

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device_buffer holds trivially copyable types");

 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) { allocate(count); }
  explicit device_buffer(std::span<const T> host, cudaStream_t stream = nullptr) {
    allocate(host.size());
    copy_from_host(host, stream);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

  void copy_from_host(std::span<const T> host, cudaStream_t stream = nullptr) {
    GRAPHKIT_EXPECTS(host.size() == size_, "device_buffer::copy_from_host: " + std::to_string(host.size()) +
                                               " elements into a buffer of " + std::to_string(size_));
    if (size_ == 0) return;
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  [[nodiscard]] std::vector<T> to_host(cudaStream_t stream = nullptr) const {
    std::vector<T> host(size_);
    if (size_ == 0) return host;
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
    return host;
  }

  /// Sets every byte to `byte` (tests poison outputs with this before a run).
  void fill_bytes(unsigned char byte, cudaStream_t stream = nullptr) {
    if (size_ == 0) return;
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(data_, byte, bytes(), stream));
  }

 private:
  void allocate(std::size_t count) {
    if (count == 0) return;
    const std::size_t wanted = count * sizeof(T);
    if (count > SIZE_MAX / sizeof(T)) throw device_memory_error("device_buffer: size overflows");
    const cudaError_t status = cudaMalloc(reinterpret_cast<void**>(&data_), wanted);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      std::size_t free_bytes = 0, total_bytes = 0;
      (void)cudaMemGetInfo(&free_bytes, &total_bytes);
      throw device_memory_error("out of GPU memory: asked for " + std::to_string(wanted) + " bytes, " +
                                std::to_string(free_bytes) + " of " + std::to_string(total_bytes) + " free");
    }
    GRAPHKIT_CUDA_TRY(status);
    size_ = count;
    detail::count_device_bytes(wanted, true);
  }
  void release() noexcept {
    if (data_ != nullptr) {
      (void)cudaFree(data_);
      detail::count_device_bytes(bytes(), false);
    }
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace graphkit
