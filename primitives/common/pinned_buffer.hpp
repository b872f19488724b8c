// Page-locked ("pinned") host memory with an owner: what DMA copies at the
// link's full speed and what cudaMemcpyAsync needs to be asynchronous.
// Freed by its destructor on every path, so a throw between allocation and
// use no longer leaks it; moves but never copies, like device_buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "primitives/common/error.hpp"

namespace graphkit {

template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned_buffer holds trivially copyable types");

 public:
  pinned_buffer() = default;
  /// `count` elements, uninitialized. `flags` as cudaHostAlloc takes them
  /// (cudaHostAllocPortable, cudaHostAllocMapped, cudaHostAllocWriteCombined).
  explicit pinned_buffer(std::size_t count, unsigned flags = cudaHostAllocDefault) { allocate(count, flags); }
  // Moves are the defaults: the unique_ptr hands the memory over and frees
  // what it replaces; copies are deleted with the unique_ptr's.

  [[nodiscard]] T* data() noexcept { return data_.get(); }
  [[nodiscard]] const T* data() const noexcept { return data_.get(); }
  /// 0 once moved from: the size counts only while the memory is here.
  [[nodiscard]] std::size_t size() const noexcept { return data_ ? size_ : 0; }
  [[nodiscard]] std::size_t bytes() const noexcept { return size() * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }

  [[nodiscard]] std::span<T> span() noexcept { return {data(), size()}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data(), size()}; }
  [[nodiscard]] T* begin() noexcept { return data(); }
  [[nodiscard]] T* end() noexcept { return data() + size(); }
  [[nodiscard]] const T* begin() const noexcept { return data(); }
  [[nodiscard]] const T* end() const noexcept { return data() + size(); }
  /// Unchecked, as in a std::vector; span() for checked views.
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  void allocate(std::size_t count, unsigned flags) {
    if (count == 0) return;
    if (count > SIZE_MAX / sizeof(T))
      throw resource_error("pinned_buffer: " + std::to_string(count) + " elements of " + std::to_string(sizeof(T)) +
                           " bytes overflow the address space");
    const std::size_t wanted = count * sizeof(T);
    void* p = nullptr;
    const cudaError_t status = cudaHostAlloc(&p, wanted, flags);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw resource_error("out of pinned host memory: asked for " + std::to_string(wanted) + " bytes");
    }
    GRAPHKIT_CUDA_TRY(status);
    data_.reset(static_cast<T*>(p));
    size_ = count;
  }

  struct free_host {
    // Errors are ignored: at process exit the CUDA context may already be gone.
    void operator()(T* p) const noexcept { (void)cudaFreeHost(p); }
  };
  std::unique_ptr<T[], free_host> data_;
  std::size_t size_ = 0;
};

}  // namespace graphkit
